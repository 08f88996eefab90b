import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Agent, fetch as undiciFetch } from 'undici';
import { AuthenticationExternalAuthType, AuthorizationTokenType, CallStatus, Client, type Call } from '@social-layer/client';
import { cleanupTempDirs, startTestServer, tempDir, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Issue 10's Done-means for guild voice: @discordjs/voice 0.19 with @snazzah/davey, unmodified,
 * inside a discord.js v14 bot installed in a guild, joins the guild's voice channel over wss
 * (the server serves development mode's self-signed certificate; the bot's process trusts it
 * through NODE_EXTRA_CA_CERTS only), plays an Opus tone, and our Node client SDK in the same
 * channel hears that tone through the relay, end-to-end encrypted (DAVE). The check is the
 * tone's frequency within a generous time budget, never timing: the machine is shared and slow.
 */
const TONE_HZ = 440;
const BOT_SCRIPT = fileURLToPath(new URL('./guildVoiceBot.mjs', import.meta.url));

let t: TestServer;
let ca: string;
let guildId: string;
let channelId: string;
let listener: Client;
let listenerId: string;
let call: Call;
let bot: ChildProcess | null = null;
const botLines: any[] = [];
const received = new Map<string, Int16Array[]>();

beforeAll(async () => {
  t = await startTestServer({ dev: true, tls: 'self-signed' });
  ca = t.server.tlsCertificate!;
  expect(t.server.url).toMatch(/^https:/);
}, 60_000);

afterAll(async () => {
  bot?.kill('SIGTERM');
  await listener?.endCalls().catch(() => {});
  listener?.disconnect?.();
  await t?.close();
  cleanupTempDirs();
});

/** Power at `hz` (Goertzel) of 48 kHz mono samples. */
function power(samples: Int16Array, hz: number): number {
  const k = 2 * Math.cos((2 * Math.PI * hz) / 48_000);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const s0 = samples[i]! / 32768 + k * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - k * s1 * s2;
}

function peak(samples: Int16Array): number {
  let best = 0;
  let bestPower = -1;
  for (let hz = 100; hz <= 2000; hz += 10) {
    const p = power(samples, hz);
    if (p > bestPower) [best, bestPower] = [hz, p];
  }
  return best;
}

function lastSamples(userId: string, frames: number): Int16Array {
  const list = (received.get(userId) ?? []).slice(-frames);
  const out = new Int16Array(list.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of list) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; bot said: ${JSON.stringify(botLines.slice(-15))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('guild voice with @discordjs/voice over wss', () => {
  it('our client SDK joins the guild voice channel (wss, self-signed certificate trusted by CA)', async () => {
    // Our client trusts the certificate by CA only: its fetch and its WebSocket class carry it.
    const agent = new Agent({ connect: { ca } });
    const CaWebSocket = class extends WebSocket {
      constructor(url: string) {
        super(url, { ca });
      }
    };
    listener = new Client({
      apiBase: t.server.url,
      webSocket: CaWebSocket as never,
      fetch: ((url: string, init: object) => undiciFetch(url, { ...init, dispatcher: agent })) as never,
      voice: { transports: ['udp'], webSocket: CaWebSocket as never, joinTimeoutMs: 60_000 },
    });
    const token = await listener.getProvisionalToken(t.app.id, AuthenticationExternalAuthType.DeviceId, randomBytes(16).toString('hex'));
    await listener.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
    await listener.connect();
    listenerId = listener.getCurrentUserV2()!.id;

    // The listener owns a guild (with its `General` voice channel); the bot is installed with CONNECT and SPEAK.
    const services = guildServicesFor(t.server.store, undefined as never);
    const guild = await services.guilds.createGuild(listenerId, { name: 'Voice Guild' });
    guildId = guild.id;
    channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 2)!.id;
    await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.Connect | Permission.Speak);

    // The SDK names a guild voice channel as it names a lobby call: by its ID.
    call = listener.startCallWithAudioCallbacks(channelId, (userId, samples) => {
      const list = received.get(userId) ?? [];
      list.push(samples.slice());
      received.set(userId, list);
    }, null)!;
    expect(call).toBeDefined();
    await waitFor(() => call.getStatus() === CallStatus.Connected, 'the listener connected', 60_000);

    const me = await undiciFetch(`${t.server.url}/api/v10/guilds/${guildId}/voice-states/@me`, { headers: { authorization: `Bearer ${await t.server.store.tokens.issue(listenerId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600)}` }, dispatcher: agent });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ guild_id: guildId, channel_id: channelId, user_id: listenerId, suppress: false });
  }, 120_000);

  it('a discord.js bot joins with @discordjs/voice, plays an Opus tone, and the listener hears it', async () => {
    const caFile = join(tempDir(), 'ca.pem');
    writeFileSync(caFile, ca);
    bot = spawn(process.execPath, [BOT_SCRIPT], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile, SL_API: `${t.server.url}/api`, SL_BOT_TOKEN: t.app.botToken, SL_GUILD_ID: guildId, SL_CHANNEL_ID: channelId, SL_TONE_HZ: String(TONE_HZ) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    bot.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          botLines.push(JSON.parse(line));
        } catch {
          botLines.push({ event: 'text', line });
        }
      }
    });
    bot.stderr!.on('data', (chunk: Buffer) => botLines.push({ event: 'stderr', text: chunk.toString().slice(0, 500) }));
    bot.on('exit', (code) => botLines.push({ event: 'exit', code }));

    await waitFor(() => botLines.some((l) => l.event === 'voice-ready'), 'the bot\'s voice connection to be Ready', 120_000);
    const botUserId = (await t.server.store.applications.get(t.app.id))!.bot_user_id;
    // The server sees the bot in the channel, by REST as well.
    const state = t.server.voice.states.guildVoiceState(guildId, botUserId);
    expect(state).toMatchObject({ guild_id: guildId, channel_id: channelId, user_id: botUserId });

    // The tone arrives: the strongest frequency of the last second heard from the bot is 440 Hz (±10).
    await waitFor(() => {
      const s = lastSamples(botUserId, 50);
      if (s.length < 48_000) return false;
      return Math.abs(peak(s) - TONE_HZ) <= 10;
    }, 'the tone from the bot', 120_000);
    // What arrived passed the relay DAVE-encrypted: the listener's call says E2EE is on.
    expect(call.isE2eeReady()).toBe(true);
    if (process.env.GUILD_VOICE_DEBUG) console.log(JSON.stringify(botLines, null, 1), t.server.voice.relayOf(channelId)?.stats);
  }, 300_000);

  it('moved by the owner (Modify Guild Member channel_id), @discordjs/voice follows to the new channel and back, and the tone is heard again', async () => {
    const botUserId = (await t.server.store.applications.get(t.app.id))!.bot_user_id;
    const services = guildServicesFor(t.server.store, undefined as never);
    const second = await services.guilds.createChannel(listenerId, guildId, { name: 'Second', type: 2 });
    const agent = new Agent({ connect: { ca } });
    const ownerToken = await t.server.store.tokens.issue(listenerId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
    const move = async (to: string) => {
      const r = await undiciFetch(`${t.server.url}/api/v10/guilds/${guildId}/members/${botUserId}`, { method: 'PATCH', headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ channel_id: to }), dispatcher: agent });
      expect(r.status).toBe(200);
    };
    const readyIn = (channel: string, after: number) => () => botLines.slice(after).some((l) => l.event === 'state' && l.to === 'ready' && l.channel === channel);

    let mark = botLines.length;
    await move(second.id);
    await waitFor(readyIn(second.id, mark), 'the bot Ready in the second channel', 120_000);
    // The new VOICE_SERVER_UPDATE usually arrives before the old socket's 4014 close: the library
    // then goes from Ready straight to Connecting with the new token (guildVoiceModeration checks the 4014).
    expect(t.server.voice.states.guildVoiceState(guildId, botUserId)).toMatchObject({ channel_id: second.id });

    // Back to the listener's channel: the tone comes through again (fresh samples only).
    mark = botLines.length;
    await move(channelId);
    await waitFor(readyIn(channelId, mark), 'the bot Ready back in the first channel', 120_000);
    received.delete(botUserId);
    await waitFor(() => {
      const s = lastSamples(botUserId, 50);
      return s.length >= 48_000 && Math.abs(peak(s) - TONE_HZ) <= 10;
    }, 'the tone after the move back', 120_000);
  }, 300_000);
});
