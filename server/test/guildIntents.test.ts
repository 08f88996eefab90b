import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, startTestServer, tempDir, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { applicationUserCount, PRIVILEGED_INTENT_USER_THRESHOLD } from '../src/guilds/intentApproval.ts';
import { Intent } from '../src/guilds/GuildGateway.ts';

/**
 * Privileged intents and the 10,000-user threshold: under it an application turns on its
 * GATEWAY_*_LIMITED flags itself; at it the flag needs an operator's approval
 * (`apps approve-intents`), and a lapsed (year-old) approval closes Identify with 4014.
 */
const BIN = fileURLToPath(new URL('../bin/social-layer.js', import.meta.url));
let t: TestServer;
let data: string;
const GUILD_MEMBERS_LIMITED = 1 << 15;

beforeAll(async () => {
  data = tempDir();
  t = await startTestServer({ dataDir: data, rateLimits: false });
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

async function identify(intents: number): Promise<{ closeCode: number | null; ready: boolean }> {
  const gw = await RawGateway.open(t.server);
  gw.send({ op: 2, d: { token: t.app.botToken, intents, properties: { os: 'l', browser: 'b', device: 'd' } } });
  const outcome = await Promise.race([gw.next((f) => f.t === 'READY').then(() => 'ready' as const), gw.closed().then(() => 'closed' as const)]).catch(() => 'closed' as const);
  const result = { closeCode: gw.closeCode, ready: outcome === 'ready' };
  gw.terminate();
  return result;
}

describe('privileged intents at 10,000 users', () => {
  it('needs approval to enable at the threshold; the approval lapses after a year', async () => {
    const owner = await t.guest('Owner');
    const s = guildServicesFor(t.server.store, undefined as never);
    const guild = await s.guilds.createGuild(owner.userId, { name: 'Big' });
    await s.installBot(guild.id, t.app.id, 0n);
    // Under the threshold the application enables the intent itself.
    expect(await applicationUserCount(t.server.store, t.app.id)).toBe(1);
    const bot = { token: t.app.botToken, bot: true };
    expect((await t.req('PATCH', '/applications/@me', { ...bot, body: { flags: GUILD_MEMBERS_LIMITED } })).status).toBe(200);
    expect((await identify(Intent.Guilds | Intent.GuildMembers)).ready).toBe(true);
    expect((await t.req('PATCH', '/applications/@me', { ...bot, body: { flags: 0 } })).status).toBe(200);

    // 10,000 users in the bot's guild (written straight to storage).
    const db = t.server.store.database.db;
    const now = Date.now();
    for (let i = 0; i < PRIVILEGED_INTENT_USER_THRESHOLD; i += 500) {
      const ids = Array.from({ length: Math.min(500, PRIVILEGED_INTENT_USER_THRESHOLD - i) }, (_, j) => String(800000000000000000n + BigInt(i + j)));
      await db.insertInto('users').values(ids.map((id) => ({ id, username: `u${id}`, global_name: null, avatar: null, is_provisional: 1, is_bot: 0, created_at: now }))).execute();
      await db.insertInto('guild_members').values(ids.map((id) => ({ guild_id: guild.id, user_id: id, nick: null, avatar: null, banner: null, bio: null, flags: 0, communication_disabled_until: null, joined_at: now }))).execute();
    }
    expect(await applicationUserCount(t.server.store, t.app.id)).toBe(PRIVILEGED_INTENT_USER_THRESHOLD + 1);
    const refused = await t.req('PATCH', '/applications/@me', { ...bot, body: { flags: GUILD_MEMBERS_LIMITED } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.flags._errors[0].code).toBe('APPLICATION_INTENTS_APPROVAL_REQUIRED');

    const approve = spawnSync(process.execPath, [BIN, 'apps', 'approve-intents', '--app', t.app.id, '--data', data], { encoding: 'utf8' });
    expect(approve.status).toBe(0);
    expect(JSON.parse(approve.stdout).privileged_intents_approved_at).toMatch(/^\d{4}-/);
    expect((await t.req('PATCH', '/applications/@me', { ...bot, body: { flags: GUILD_MEMBERS_LIMITED } })).status).toBe(200);
    expect((await identify(Intent.Guilds | Intent.GuildMembers)).ready).toBe(true);

    // A year later the approval has lapsed: Identify with the privileged intent closes with 4014.
    await db.updateTable('applications').set({ privileged_intents_approved_at: Date.now() - 366 * 86_400_000 }).where('id', '=', t.app.id).execute();
    expect(await identify(Intent.Guilds | Intent.GuildMembers)).toEqual({ closeCode: 4014, ready: false });
    expect((await identify(Intent.Guilds)).ready).toBe(true);
    expect(spawnSync(process.execPath, [BIN, 'apps', 'approve-intents', '--app', '123', '--data', data], { encoding: 'utf8' }).status).toBe(2);
  }, 60_000);
});
