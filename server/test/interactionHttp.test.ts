import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyKey } from 'discord-interactions';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';
import { WebhookSigner } from '../src/webhooks/signing.ts';
import { InteractionsApp } from './interactionsApp.ts';

/**
 * Issue 13, HTTP interactions: a small fastify application verifies every request with
 * discord-interactions' verifyKey (and refuses stale timestamps), answers the PING that
 * `PATCH /applications/@me interactions_endpoint_url` sends, and answers commands in the HTTP
 * response. A tampered body or an old timestamp is refused by the app; a URL that accepts a forged
 * signature, or a loopback URL in production, is refused by the server; an app that answers
 * after 3 s gets its interaction marked failed, with no retry.
 */
let t: TestServer;
let receiver: InteractionsApp;
let userGw: RawGateway;
let guildId: string;
let channelId: string;
let commandId: string;
let user: { token: string; userId: string };

beforeAll(async () => {
  t = await startTestServer({ dev: true });
  const g = await t.guest('Player');
  user = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
  const services = guildServicesFor(t.server.store, undefined as never);
  guildId = (await services.guilds.createGuild(user.userId, { name: 'HTTP interactions' })).id;
  channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
  await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
  const me = await t.req('GET', '/applications/@me', { token: t.app.botToken, bot: true });
  receiver = new InteractionsApp(me.body.verify_key);
  await receiver.start();
  commandId = (await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { name: 'hello', description: 'Say hello' } })).body.id;
  userGw = await RawGateway.open(t.server);
  await userGw.identify(user.token, MessageIntent.Guilds | MessageIntent.GuildMessages);
});
afterAll(async () => {
  userGw?.terminate();
  await receiver?.app.close();
  await t?.close();
  cleanupTempDirs();
});

const invoke = (nonce: string) => t.req('POST', '/interactions', { token: user.token, body: { type: 2, channel_id: channelId, data: { id: commandId, name: 'hello', type: 1 }, nonce } });

describe('HTTP interactions signed with Ed25519', () => {
  it('a careless endpoint (accepts a forged signature) is refused; nothing is saved', async () => {
    receiver.careless = true;
    const r = await t.req('PATCH', '/applications/@me', { token: t.app.botToken, bot: true, body: { interactions_endpoint_url: receiver.url } });
    receiver.careless = false;
    expect(r.status).toBe(400);
    expect(r.body.errors.interactions_endpoint_url._errors[0].code).toBe('APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID');
    expect((await t.req('GET', '/applications/@me', { token: t.app.botToken, bot: true })).body.interactions_endpoint_url).toBeNull();
  });

  it('the endpoint is set with PATCH /applications/@me after a verified PING answered with type 1', async () => {
    receiver.seen.length = 0;
    const r = await t.req('PATCH', '/applications/@me', { token: t.app.botToken, bot: true, body: { interactions_endpoint_url: receiver.url } });
    expect(r.status).toBe(200);
    expect(r.body.interactions_endpoint_url).toBe(receiver.url);
    expect(receiver.seen.map((s) => s.body.type)).toEqual([1]);
    expect(receiver.seen[0]!.body.application_id).toBe(t.app.id);
  });

  it('a command goes to the endpoint signed; the app verifies it and answers in the HTTP response', async () => {
    receiver.seen.length = 0;
    const r = await invoke('n-http');
    expect(r.status).toBe(200);
    const msg = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'answered over HTTP');
    expect(msg.d.interaction_metadata.id).toBe(r.body.id);
    const got = receiver.seen.find((s) => s.body.id === r.body.id)!;
    expect(got.body).toMatchObject({ type: 2, application_id: t.app.id, guild_id: guildId, channel_id: channelId, version: 1, context: 0, authorizing_integration_owners: { 0: guildId }, data: { id: commandId, name: 'hello' } });
    expect(typeof got.body.app_permissions).toBe('string');
    expect(Array.isArray(got.body.entitlements)).toBe(true);
    expect(await verifyKey(got.raw, got.signature, got.timestamp, receiver.publicKey)).toBe(true);
    await userGw.next((f) => f.t === 'INTERACTION_SUCCESS' && f.d.nonce === 'n-http');
  });

  it('a tampered body and a stale timestamp are refused by the app', async () => {
    const got = receiver.seen.at(-1)!;
    const post = (body: string, headers: Record<string, string>) => fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const tampered = got.raw.replace('"hello"', '"hellp"');
    expect((await post(tampered, { 'x-signature-ed25519': got.signature, 'x-signature-timestamp': got.timestamp })).status).toBe(401);
    // Correctly signed, but ten minutes old: refused as a replay.
    const keys = await t.server.store.webhookEvents.keyPair(t.app.id);
    const old = WebhookSigner.headers(new WebhookSigner().key(t.app.id, keys.private_key), got.raw, Date.now() - 10 * 60_000);
    expect((await post(got.raw, old)).status).toBe(401);
    // The same request, fresh: accepted (so the two refusals were for the tampering and the age).
    const fresh = WebhookSigner.headers(new WebhookSigner().key(t.app.id, keys.private_key), got.raw);
    expect((await post(got.raw, fresh)).status).toBe(200);
  });

  it('an app that answers after 3 s: the interaction is marked failed, nothing is retried', async () => {
    receiver.seen.length = 0;
    receiver.answer = async () => {
      await new Promise((r) => setTimeout(r, 3500));
      return { type: 4, data: { content: 'too late' } };
    };
    const started = Date.now();
    const r = await invoke('n-slow');
    const failed = await userGw.next((f) => f.t === 'INTERACTION_FAILURE' && f.d.nonce === 'n-slow', 20_000);
    expect(failed.d.id).toBe(r.body.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect((await t.server.interactions.repo.interaction(r.body.id))!.state).toBe('failed');
    await new Promise((res) => setTimeout(res, 1500));
    expect(receiver.seen.filter((s) => s.body.id === r.body.id)).toHaveLength(1);
    expect(userGw.frames.some((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'too late')).toBe(false);
    receiver.answer = async () => ({ type: 4, data: { content: 'answered over HTTP' } });
  }, 30_000);

  it('clearing the URL sends interactions over the Gateway again', async () => {
    const r = await t.req('PATCH', '/applications/@me', { token: t.app.botToken, bot: true, body: { interactions_endpoint_url: null } });
    expect(r.body.interactions_endpoint_url).toBeNull();
    const bot = await RawGateway.open(t.server);
    await bot.identify(t.app.botToken);
    const inv = await invoke('n-gw');
    expect((await bot.next((f) => f.t === 'INTERACTION_CREATE')).d.id).toBe(inv.body.id);
    bot.terminate();
  });
});

describe('interactions endpoint URL in production', () => {
  it('loopback and private addresses are refused', async () => {
    const prod = await startTestServer();
    try {
      for (const url of ['https://127.0.0.1/interactions', 'https://10.0.0.1/x', 'http://example.com/x']) {
        const r = await prod.req('PATCH', '/applications/@me', { token: prod.app.botToken, bot: true, body: { interactions_endpoint_url: url } });
        expect(r.status, url).toBe(400);
        expect(r.body.errors.interactions_endpoint_url._errors[0].code).toMatch(/^URL_TYPE_/);
      }
    } finally {
      await prod.close();
    }
  });
});
