import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityType, Client, Events, GatewayIntentBits, type Presence } from 'discord.js';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Two discord.js v14 bots, unmodified (pointed at us by `rest.api` only: the Gateway URL comes
 * from GET /gateway/bot), in one guild. The watcher holds GUILD_PRESENCES (its application enabled
 * GATEWAY_PRESENCE_LIMITED); the other sets its presence with `client.user.setPresence` (op 3),
 * and the watcher's `presenceUpdate` event shows it, as it would against the public service.
 */
const GATEWAY_PRESENCE_LIMITED = 1 << 13;
let t: TestServer;
let guildId: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestServer();
  const owner = await t.guest('Owner');
  const services = guildServicesFor(t.server.store, undefined as never);
  guildId = (await services.guilds.createGuild(owner.userId, { name: 'Presence Guild' })).id;
  await services.installBot(guildId, t.app.id, Permission.ViewChannel);
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.destroy();
  await t?.close();
  cleanupTempDirs();
});

async function login(token: string, intents: GatewayIntentBits[]): Promise<Client> {
  const client = new Client({ intents, rest: { api: `${t.server.url}/api` } });
  clients.push(client);
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(token);
  await ready;
  return client;
}

describe('discord.js: a bot\'s presence seen by another bot in the guild', () => {
  it('setPresence reaches the GUILD_PRESENCES holder as presenceUpdate', async () => {
    const watcherApp = await t.server.createApplication({ name: 'Watcher' });
    await guildServicesFor(t.server.store, undefined as never).installBot(guildId, watcherApp.id, Permission.ViewChannel);
    expect((await t.req('PATCH', '/applications/@me', { token: watcherApp.botToken, bot: true, body: { flags: GATEWAY_PRESENCE_LIMITED } })).status).toBe(200);
    const watcher = await login(watcherApp.botToken, [GatewayIntentBits.Guilds, GatewayIntentBits.GuildPresences]);
    expect(watcher.application?.flags.bitfield).toBe(GATEWAY_PRESENCE_LIMITED);

    const player = await login(t.app.botToken, [GatewayIntentBits.Guilds]);
    const seen = new Promise<Presence>((resolve) => {
      watcher.on(Events.PresenceUpdate, (_old, now) => {
        if (now.userId === player.user!.id && now.status === 'dnd') resolve(now);
      });
    });
    player.user!.setPresence({ status: 'dnd', activities: [{ name: 'Chess', type: ActivityType.Competing }] });
    const presence = await seen;
    expect(presence.guild?.id).toBe(guildId);
    expect(presence.activities.map((a) => [a.name, a.type])).toEqual([['Chess', ActivityType.Competing]]);
    expect(watcher.guilds.cache.get(guildId)?.presences.cache.get(player.user!.id)?.status).toBe('dnd');
  });
});
