import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, RawGateway, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Intent } from '../src/guilds/GuildGateway.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Guild presences: PRESENCE_UPDATE with `guild_id` reaches the sessions of a guild's members that
 * hold GUILD_PRESENCES (privileged: the application's flags decide, else 4014), never the others;
 * a bot's own op 3 is its presence in every guild it is in; GUILD_CREATE and op 8 carry the
 * presences of the members not offline; `large_threshold` leaves offline members out of a large
 * guild's GUILD_CREATE. READY carries `private_channels` (empty for bots) and the real flags.
 */
const GATEWAY_PRESENCE_LIMITED = 1 << 13;
const props = { os: 'linux', browser: 'test', device: 'test' };

describe.each(databaseConfigs())('guild presences ($name)', ({ config }) => {
  let t: TestServer;
  let guildId: string;
  let owner: { token: string; userId: string };
  /** A: sets its presence; B: holds GUILD_PRESENCES; C: in the guild without it. */
  const bots: Record<'a' | 'b' | 'c', { id: string; botToken: string; userId: string }> = {} as never;
  const open: RawGateway[] = [];

  async function connect(token: string, intents: number, extra: Record<string, unknown> = {}): Promise<{ gw: RawGateway; ready: any }> {
    const gw = await RawGateway.open(t.server);
    open.push(gw);
    gw.send({ op: 2, d: { token, intents, properties: props, ...extra } });
    const ready = (await gw.next((f) => f.t === 'READY')).d;
    return { gw, ready };
  }

  /** A round trip on the socket: every dispatch published to it before now has arrived once this answers. */
  async function settled(gw: RawGateway, userId: string): Promise<void> {
    const nonce = Math.random().toString(36).slice(2, 12);
    gw.send({ op: 8, d: { guild_id: guildId, user_ids: [userId], nonce } });
    await gw.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === nonce);
  }

  const presenceOf = (gw: RawGateway, userId: string, status: string) => gw.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === userId && f.d.status === status);

  beforeAll(async () => {
    t = await startTestServer({ database: config(), rateLimits: false });
    owner = await t.guest('Owner');
    const services = guildServicesFor(t.server.store, undefined as never);
    guildId = (await services.guilds.createGuild(owner.userId, { name: 'Presence Guild' })).id;
    for (const k of ['a', 'b', 'c'] as const) {
      const app = k === 'a' ? t.app : await t.server.createApplication({ name: `Bot ${k}` });
      await services.installBot(guildId, app.id, Permission.ViewChannel);
      const app2 = await t.server.store.applications.get(app.id);
      bots[k] = { id: app.id, botToken: app.botToken, userId: app2!.bot_user_id };
    }
    // B's application enables GUILD_PRESENCES itself (under 10,000 users), as a developer does.
    const patched = await t.req('PATCH', '/applications/@me', { token: bots.b.botToken, bot: true, body: { flags: GATEWAY_PRESENCE_LIMITED } });
    expect(patched.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    for (const g of open) g.terminate();
    await t?.close();
    cleanupTempDirs();
    await dropTestSchemas();
  });

  it('GUILD_PRESENCES without the application flag closes Identify with 4014', async () => {
    const gw = await RawGateway.open(t.server);
    open.push(gw);
    gw.send({ op: 2, d: { token: bots.c.botToken, intents: Intent.Guilds | Intent.GuildPresences, properties: props } });
    expect(await gw.closed()).toBe(4014);
  });

  it('READY carries private_channels (empty for a bot), session_type and the application\'s flags', async () => {
    const { ready } = await connect(bots.b.botToken, Intent.Guilds);
    expect(ready.private_channels).toEqual([]);
    expect(ready.session_type).toBe('normal');
    expect(ready.application).toEqual({ id: bots.b.id, flags: GATEWAY_PRESENCE_LIMITED });
    expect(ready.guilds).toEqual([{ id: guildId, unavailable: true }]);
    const user = await connect(owner.token, 0);
    expect(user.ready.private_channels).toEqual([]);
    user.gw.ws.close(1000);
  });

  it('a bot\'s op 3 and a user\'s status reach the GUILD_PRESENCES holder with guild_id, and no one else', async () => {
    const b = await connect(bots.b.botToken, Intent.Guilds | Intent.GuildPresences);
    const c = await connect(bots.c.botToken, Intent.Guilds);
    await b.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId);
    await c.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId);

    const a = await connect(bots.a.botToken, Intent.Guilds);
    a.gw.send({ op: 3, d: { since: null, afk: false, status: 'dnd', activities: [{ name: 'Chess', type: 0 }] } });
    const seen = await presenceOf(b.gw, bots.a.userId, 'dnd');
    expect(seen.d).toEqual({
      user: { id: bots.a.userId },
      guild_id: guildId,
      status: 'dnd',
      activities: [{ name: 'Chess', type: 0, created_at: expect.any(Number) }],
      client_status: { web: 'dnd' },
    });

    // The owner comes online in a game and sets a status with op 3.
    const ownerGw = await connect(owner.token, 0);
    await presenceOf(b.gw, owner.userId, 'online');
    ownerGw.gw.send({ op: 3, d: { status: 'idle' } });
    const idle = await presenceOf(b.gw, owner.userId, 'idle');
    expect(idle.d).toMatchObject({ guild_id: guildId, activities: [], client_status: { web: 'idle' } });

    // C (no GUILD_PRESENCES) heard none of it.
    await settled(c.gw, bots.c.userId);
    expect(c.gw.dispatches('PRESENCE_UPDATE')).toEqual([]);

    // A malformed op 3 from a bot closes with 4001, as a user's does.
    const bad = await connect(bots.a.botToken, Intent.Guilds);
    bad.gw.send({ op: 3, d: { status: 'sleepy', activities: [] } });
    expect(await bad.gw.closed()).toBe(4001);

    // GUILD_CREATE and op 8 with presences: the members not offline, with the bot's op 3 activity.
    const b2 = await connect(bots.b.botToken, Intent.Guilds | Intent.GuildPresences);
    const created = (await b2.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId)).d;
    const byId = (list: any[]) => Object.fromEntries(list.map((p) => [p.user.id, p.status]));
    expect(byId(created.presences)).toMatchObject({ [bots.a.userId]: 'dnd', [owner.userId]: 'idle', [bots.b.userId]: 'online', [bots.c.userId]: 'online' });
    expect(created.presences.every((p: any) => p.guild_id === guildId)).toBe(true);
    b2.gw.send({ op: 8, d: { guild_id: guildId, user_ids: [bots.a.userId, owner.userId], presences: true, nonce: 'p1' } });
    const chunk = (await b2.gw.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === 'p1')).d;
    expect(chunk.presences.find((p: any) => p.user.id === bots.a.userId)).toMatchObject({ guild_id: guildId, status: 'dnd', activities: [{ name: 'Chess', type: 0 }] });
    expect(byId(chunk.presences)).toEqual({ [bots.a.userId]: 'dnd', [owner.userId]: 'idle' });
    // C may not ask for presences: the request is ignored.
    c.gw.send({ op: 8, d: { guild_id: guildId, user_ids: [bots.a.userId], presences: true, nonce: 'p2' } });
    await settled(c.gw, bots.c.userId);
    expect(c.gw.dispatches('GUILD_MEMBERS_CHUNK').some((f) => f.d.nonce === 'p2')).toBe(false);

    // A's last session ends: offline to the guild.
    a.gw.ws.close(1000);
    await presenceOf(b.gw, bots.a.userId, 'offline');
    ownerGw.gw.ws.close(1000);
    const gone = await presenceOf(b.gw, owner.userId, 'offline');
    expect(gone.d).toMatchObject({ activities: [], client_status: {} });
  });

  it('large_threshold leaves the offline members out of a large guild\'s GUILD_CREATE', async () => {
    // 60 more members, none connected (written straight to storage).
    const db = t.server.store.database.db;
    const now = Date.now();
    const ids = Array.from({ length: 60 }, (_, i) => String(810000000000000000n + BigInt(i)));
    await db.insertInto('users').values(ids.map((id) => ({ id, username: `u${id}`, global_name: null, avatar: null, is_provisional: 1, is_bot: 0, created_at: now }))).execute();
    await db.insertInto('guild_members').values(ids.map((id) => ({ guild_id: guildId, user_id: id, nick: null, avatar: null, banner: null, bio: null, flags: 0, communication_disabled_until: null, joined_at: now }))).execute();
    const c = await connect(bots.c.botToken, Intent.Guilds);
    const plain = (await c.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId)).d;
    // Without GUILD_PRESENCES: its own member only, and `large` by the threshold all the same.
    expect([plain.large, plain.members.map((m: any) => m.user.id), plain.presences]).toEqual([true, [bots.c.userId], []]);
    const cAt250 = await connect(bots.c.botToken, Intent.Guilds, { large_threshold: 250 });
    expect((await cAt250.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId)).d.large).toBe(false);

    const small = await connect(bots.b.botToken, Intent.Guilds | Intent.GuildPresences, { large_threshold: 250 });
    const full = (await small.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId)).d;
    expect(full.large).toBe(false);
    expect(full.members.length).toBe(full.member_count);

    const large = await connect(bots.b.botToken, Intent.Guilds | Intent.GuildPresences);
    const trimmed = (await large.gw.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId)).d;
    expect(trimmed.large).toBe(true);
    expect(trimmed.member_count).toBe(full.member_count);
    const online = new Set(trimmed.presences.map((p: any) => p.user.id));
    expect(trimmed.members.map((m: any) => m.user.id).sort()).toEqual([...online].sort());
    expect(online.has(bots.b.userId) && online.has(bots.c.userId)).toBe(true);
    expect(trimmed.members.some((m: any) => ids.includes(m.user.id))).toBe(false);
  });
});
