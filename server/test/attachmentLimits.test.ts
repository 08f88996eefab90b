// The spec's attachment_size_limit: 10 MiB by default, raised by the guild's boost level
// (premium_tier) or the uploader's paid level (premium_type), whichever allows more; both levels
// set by an operator (`guilds set-premium-tier`, `users set-premium`). Message uploads are held to
// the limit of the uploader in that guild, and interactions carry it. SQLite and PostgreSQL.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../src/cli/command.ts';
import { guildsSetPremiumTier, usersSetPremium } from '../src/cli/premium.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { attachmentSizeLimit } from '../src/messages/attachmentLimits.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, tempDir, webToken, type TestServer } from './harness.ts';

const MiB = 1024 * 1024;

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

describe('attachment size limits', () => {
  it('the default until boost level 2; paid levels raise it; the larger of the two wins', () => {
    expect([0, 1, 2, 3].map((tier) => attachmentSizeLimit(tier, 0) / MiB)).toEqual([10, 10, 50, 100]);
    expect([0, 1, 2, 3].map((type) => attachmentSizeLimit(0, type) / MiB)).toEqual([10, 50, 100, 50]);
    expect(attachmentSizeLimit(2, 2) / MiB).toBe(100);
    expect(attachmentSizeLimit(9, 9) / MiB).toBe(10);
  });
});

for (const { name: dbName, config } of databaseConfigs()) {
  describe(`attachment_size_limit by boost and paid level (${dbName})`, () => {
    let t: TestServer;
    let dataDir: string;
    let owner: { userId: string; token: string };
    let guildId: string;
    let channelId: string;
    let bot: RawGateway;
    let commandId: string;

    const cli = async (command: typeof guildsSetPremiumTier, values: Record<string, string>) => {
      let out = '';
      const io: CliIo = { out: (s) => void (out += s), err: (s) => void (out += s) };
      const where = dbName === 'sqlite' ? { data: dataDir } : {};
      expect(await command.run({ ...values, ...where }, io)).toBe(0);
      return JSON.parse(out) as Record<string, number | string>;
    };
    // On PostgreSQL the test's schema is not one the CLI can name: the same write, made directly.
    const setTier = async (tier: number) =>
      dbName === 'sqlite' ? cli(guildsSetPremiumTier, { guild: guildId, tier: String(tier) }) : t.server.store.database.db.updateTable('guilds').set({ premium_tier: tier }).where('id', '=', guildId).execute();
    const setPremium = async (type: number) =>
      dbName === 'sqlite' ? cli(usersSetPremium, { user: owner.userId, type: String(type) }) : t.server.store.database.db.updateTable('users').set({ premium_type: type }).where('id', '=', owner.userId).execute();

    async function upload(bytes: number): Promise<number> {
      const form = new FormData();
      form.append('payload_json', JSON.stringify({ content: `${bytes} bytes` }));
      form.append('files[0]', new Blob([new Uint8Array(bytes)]), 'big.bin');
      const res = await fetch(`${t.api}/channels/${channelId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
      await res.arrayBuffer();
      return res.status;
    }

    async function interactionLimit(): Promise<number> {
      const r = await t.req('POST', '/interactions', { token: owner.token, body: { type: 2, channel_id: channelId, guild_id: guildId, data: { id: commandId } } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (await bot.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === r.body.id)).d.attachment_size_limit;
    }

    beforeAll(async () => {
      dataDir = tempDir();
      const database = dbName === 'sqlite' ? { dialect: 'sqlite' as const, file: join(dataDir, 'social-layer.sqlite') } : config();
      t = await startTestServer({ database, dataDir, rateLimits: false });
      const g = await t.guest('Booster');
      owner = { userId: g.userId, token: await webToken(t, g.userId) };
      const services = guildServicesFor(t.server.store, undefined as never);
      guildId = (await services.guilds.createGuild(owner.userId, { name: 'Boosted' })).id;
      channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
      await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
      commandId = (await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { name: 'limit', description: 'Shows the limit' } })).body.id;
      bot = await RawGateway.open(t.server);
      await bot.identify(t.app.botToken, MessageIntent.Guilds);
    });
    afterAll(async () => {
      bot?.terminate();
      await t?.close();
    });

    it('a guild at level 0 takes 10 MiB; at level 2 it takes 50 MiB and says so in the guild and in interactions', async () => {
      expect(await upload(12 * MiB)).toBe(413);
      expect(await interactionLimit()).toBe(10 * MiB);
      const printed = await setTier(2);
      if (dbName === 'sqlite') expect(printed).toEqual({ id: guildId, premium_tier: 2, attachment_size_limit: 50 * MiB });
      expect((await t.req('GET', `/guilds/${guildId}`, { token: owner.token })).body.premium_tier).toBe(2);
      expect(await upload(12 * MiB)).toBe(200);
      expect(await interactionLimit()).toBe(50 * MiB);
    });

    it("the uploader's paid level raises it past the guild's, and going back lowers it again", async () => {
      await setTier(0);
      expect(await upload(12 * MiB)).toBe(413);
      await setPremium(2);
      expect(await interactionLimit()).toBe(100 * MiB);
      expect(await upload(12 * MiB)).toBe(200);
      await setPremium(0);
      expect(await interactionLimit()).toBe(10 * MiB);
      expect(await upload(12 * MiB)).toBe(413);
    });
  });
}

describe('the operator commands refuse what they cannot do', () => {
  it('an unknown guild or user, a bot, a level out of range', async () => {
    const data = tempDir();
    const io: CliIo = { out: () => {}, err: () => {} };
    await expect(guildsSetPremiumTier.run({ guild: '123', tier: '4', data }, io)).rejects.toThrow(/0 to 3/);
    await expect(guildsSetPremiumTier.run({ guild: '123', tier: '2', data }, io)).rejects.toThrow(/no guild 123/);
    await expect(usersSetPremium.run({ user: '123', type: '2', data }, io)).rejects.toThrow(/no user 123/);
    await expect(usersSetPremium.run({ user: 'x', type: '2', data }, io)).rejects.toThrow(/numeric ID/);
  });
});
