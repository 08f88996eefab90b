import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotAuthorization } from '../src/guilds/BotAuthorization.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

/**
 * Webhook events of the guild install and of entitlements after their creation (issue 15), at a
 * receiver that verifies each with discord-interactions: APPLICATION_AUTHORIZED for a bot added
 * to a guild (integration_type 0, scopes, the user who added it, the guild) and
 * APPLICATION_DEAUTHORIZED when it is kicked, banned or leaves; ENTITLEMENT_UPDATE when a
 * consumable is consumed and when a subscription's entitlement ends, ENTITLEMENT_DELETE when a
 * test entitlement is deleted. Each is written in its change's transaction: a refused change
 * leaves no event. On SQLite and PostgreSQL.
 */
const DAY = 86_400_000;

for (const { name, config } of databaseConfigs()) {
  describe(`install and entitlement webhook events (${name})`, () => {
    let t: TestServer;
    let receiver: WebhookReceiver;
    let now = Date.now();
    type U = { userId: string; token: string };
    let owner: U;

    const userWithGuilds = async (n: string): Promise<U> => {
      const g = await t.guest(n);
      return { userId: g.userId, token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600) };
    };
    const newGuild = async (n: string) => {
      const r = await t.req('POST', '/guilds', { token: owner.token, body: { name: n } });
      expect(r.status).toBe(201);
      return r.body as { id: string };
    };
    const events = (type: string) => receiver.events().filter((e) => e.body.event.type === type).map((e) => e.body.event.data);
    const event = async (type: string, match: (d: any) => boolean): Promise<any> => {
      let found: any;
      await receiver.waitFor(() => (found = events(type).find(match)) !== undefined);
      return found;
    };
    const outboxCount = async (type: string) => (await t.server.store.database.db.selectFrom('webhook_events').select('id').where('type', '=', type).execute()).length;

    beforeAll(async () => {
      t = await startTestServer({
        database: config(),
        rateLimits: false,
        commerce: { clock: { now: () => now }, scheduler: false },
        webhooks: { allowLoopback: true, pollIntervalMs: 50 },
      });
      receiver = await WebhookReceiver.start();
      receiver.publicKey = (await t.server.webhooks.wire(t.app.id)).verify_key;
      await t.server.webhooks.update(t.app.id, {
        event_webhooks_url: receiver.url,
        event_webhooks_types: ['APPLICATION_AUTHORIZED', 'APPLICATION_DEAUTHORIZED', 'ENTITLEMENT_CREATE', 'ENTITLEMENT_UPDATE', 'ENTITLEMENT_DELETE'],
      });
      owner = await userWithGuilds('Owner');
    });
    afterAll(async () => {
      await t?.close();
      await receiver?.close();
      await dropTestSchemas();
      cleanupTempDirs();
    });

    it('adding the bot to a guild: APPLICATION_AUTHORIZED with integration_type 0, scopes, the installing user and the guild; once', async () => {
      const guild = await newGuild('Install');
      const services = guildServicesFor(t.server.store, undefined as never);
      const auth = new BotAuthorization(t.server.store, services);
      const req = await auth.check(new URLSearchParams({ client_id: t.app.id, scope: 'bot applications.commands', permissions: String(Permission.SendMessages) }));
      if (typeof req === 'string') throw new Error(req);
      const r = await auth.install(req, owner.userId, guild.id);
      expect(typeof r).toBe('object');
      const data = await event('APPLICATION_AUTHORIZED', (d) => d.guild?.id === guild.id);
      expect(data).toMatchObject({ integration_type: 0, scopes: ['bot', 'applications.commands'], user: { id: owner.userId, global_name: 'Owner' }, guild: { id: guild.id, name: 'Install', owner_id: owner.userId } });
      expect(receiver.events().every((e) => e.verified)).toBe(true);

      // Installing again only updates the role's permissions: no second event.
      const before = await outboxCount('APPLICATION_AUTHORIZED');
      await services.installBot(guild.id, t.app.id, Permission.SendMessages | Permission.ViewChannel, { installerId: owner.userId });
      expect(await outboxCount('APPLICATION_AUTHORIZED')).toBe(before);

      // The admin CLI's path names the guild's owner as the installer.
      const other = await newGuild('Cli');
      await services.installBot(other.id, t.app.id, 0n);
      expect(await event('APPLICATION_AUTHORIZED', (d) => d.guild?.id === other.id)).toMatchObject({ integration_type: 0, scopes: ['bot'], user: { id: owner.userId } });
    });

    it('kicked, banned, or leaving by itself: APPLICATION_DEAUTHORIZED with the user who removed it and the guild', async () => {
      const services = guildServicesFor(t.server.store, undefined as never);
      const bot = { token: t.app.botToken, bot: true };
      const botId = (await t.req('GET', '/users/@me', bot)).body.id as string;

      const kicked = await newGuild('Kick');
      await services.installBot(kicked.id, t.app.id, 0n, { installerId: owner.userId });
      expect((await t.req('DELETE', `/guilds/${kicked.id}/members/${botId}`, { token: owner.token })).status).toBe(204);
      expect(await event('APPLICATION_DEAUTHORIZED', (d) => d.guild?.id === kicked.id)).toMatchObject({ user: { id: owner.userId }, integration_type: 0, guild: { id: kicked.id } });

      const banned = await newGuild('Ban');
      await services.installBot(banned.id, t.app.id, 0n, { installerId: owner.userId });
      expect((await t.req('PUT', `/guilds/${banned.id}/bans/${botId}`, { token: owner.token, body: {} })).status).toBe(204);
      expect(await event('APPLICATION_DEAUTHORIZED', (d) => d.guild?.id === banned.id)).toMatchObject({ user: { id: owner.userId }, guild: { id: banned.id } });
      // A banned bot cannot be installed again: refused, and no APPLICATION_AUTHORIZED is recorded.
      const before = await outboxCount('APPLICATION_AUTHORIZED');
      await expect(services.installBot(banned.id, t.app.id, 0n, { installerId: owner.userId })).rejects.toMatchObject({ code: 40007 });
      expect(await outboxCount('APPLICATION_AUTHORIZED')).toBe(before);

      const left = await newGuild('Leave');
      await services.installBot(left.id, t.app.id, 0n, { installerId: owner.userId });
      expect((await t.req('DELETE', `/users/@me/guilds/${left.id}`, bot)).status).toBe(204);
      expect(await event('APPLICATION_DEAUTHORIZED', (d) => d.guild?.id === left.id)).toMatchObject({ user: { id: botId, bot: true }, guild: { id: left.id } });

      // A person leaving or kicked is no bot removal: no event.
      const people = await newGuild('People');
      const ch = (await t.req('GET', `/guilds/${people.id}/channels`, { token: owner.token })).body.find((c: any) => c.type === 0);
      const inv = await t.req('POST', `/channels/${ch.id}/invites`, { token: owner.token, body: {} });
      const pat = await userWithGuilds('Pat');
      expect((await t.req('POST', `/invites/${inv.body.code}`, { token: pat.token })).status).toBe(200);
      const deauth = await outboxCount('APPLICATION_DEAUTHORIZED');
      expect((await t.req('DELETE', `/guilds/${people.id}/members/${pat.userId}`, { token: owner.token })).status).toBe(204);
      expect(await outboxCount('APPLICATION_DEAUTHORIZED')).toBe(deauth);
    });

    it('entitlements: ENTITLEMENT_UPDATE on consume and when a subscription ends, ENTITLEMENT_DELETE for a deleted test entitlement', async () => {
      const bot = { token: t.app.botToken, bot: true };
      const buyer = await t.guest('Buyer');
      const potion = (await t.server.commerce.createSku(t.app.id, { name: 'Potion', type: 'consumable', price: 10 })).id;
      const sword = (await t.server.commerce.createSku(t.app.id, { name: 'Sword', type: 'durable', price: 100 })).id;
      const plan = (await t.server.commerce.createSku(t.app.id, { name: 'Plan', type: 'subscription', price: 500, billingPeriodDays: 30 })).id;

      const bought = await t.server.commerce.purchase(t.app.id, buyer.userId, potion);
      expect((await t.req('POST', `/applications/${t.app.id}/entitlements/${bought.entitlement.id}/consume`, bot)).status).toBe(204);
      expect(await event('ENTITLEMENT_UPDATE', (d) => d.id === bought.entitlement.id)).toEqual({ ...bought.entitlement, consumed: true });
      // A refused consume (twice) writes no event.
      const updates = await outboxCount('ENTITLEMENT_UPDATE');
      expect((await t.req('POST', `/applications/${t.app.id}/entitlements/${bought.entitlement.id}/consume`, bot)).status).toBe(400);
      expect(await outboxCount('ENTITLEMENT_UPDATE')).toBe(updates);

      const test = (await t.req('POST', `/applications/${t.app.id}/entitlements`, { ...bot, body: { sku_id: sword, owner_id: buyer.userId, owner_type: 2 } })).body;
      await event('ENTITLEMENT_CREATE', (d) => d.id === test.id);
      expect((await t.req('DELETE', `/applications/${t.app.id}/entitlements/${test.id}`, bot)).status).toBe(204);
      expect(await event('ENTITLEMENT_DELETE', (d) => d.id === test.id)).toEqual({ ...test, deleted: true });

      const sub = await t.server.commerce.purchase(t.app.id, buyer.userId, plan);
      await t.server.commerce.cancelSubscription(buyer.userId, sub.subscription!.id);
      const end = Date.parse(sub.subscription!.current_period_end);
      now = end + DAY;
      expect(await t.server.subscriptionScheduler.tick()).toBe(1);
      expect(await event('ENTITLEMENT_UPDATE', (d) => d.id === sub.entitlement.id)).toEqual({ ...sub.entitlement, ends_at: new Date(end).toISOString() });
      expect(receiver.events().every((e) => e.verified)).toBe(true);
    });
  });
}
