import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * The guild REST surface against the real server: public paths and shapes, permission refusals
 * (50013) with nothing written, unknown IDs with their public codes, schema refusals (50035).
 */
let t: TestServer;
type U = { userId: string; token: string };
let owner: U;
let alice: U;
let bob: U;

async function userWithGuildsScope(name: string): Promise<U> {
  const g = await t.guest(name);
  const token = await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
  return { userId: g.userId, token };
}
const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const as = (u: U) => ({ token: u.token });
const bot = () => ({ token: t.app.botToken, bot: true });

beforeAll(async () => {
  // Budgets are not under test here (many writes in a row); the routes declare them.
  t = await startTestServer({ rateLimits: false });
  owner = await userWithGuildsScope('Owner');
  alice = await userWithGuildsScope('Alice');
  bob = await userWithGuildsScope('Bob');
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

async function newGuild(name = 'Guild') {
  const r = await t.req('POST', '/guilds', { ...as(owner), body: { name } });
  expect(r.status).toBe(201);
  const channels = (await t.req('GET', `/guilds/${r.body.id}/channels`, as(owner))).body as any[];
  return { guild: r.body, channels, text: channels.find((c) => c.type === 0), voice: channels.find((c) => c.type === 2) };
}

async function join(guildId: string, channelId: string, u: U) {
  const inv = await t.req('POST', `/channels/${channelId}/invites`, { ...as(owner), body: {} });
  expect(inv.status).toBe(200);
  const acc = await t.req('POST', `/invites/${inv.body.code}`, as(u));
  expect(acc.status).toBe(200);
  expect(acc.body.guild.id).toBe(guildId);
}

describe('guilds', () => {
  it('a user creates a guild with @everyone, a general text channel and a General voice channel; apps are refused', async () => {
    const { guild, channels } = await newGuild('Home');
    expect(guild).toMatchObject({ name: 'Home', owner_id: owner.userId, roles: [{ id: guild.id, name: '@everyone', position: 0 }] });
    expect(channels.map((c) => [c.type, c.name])).toEqual(expect.arrayContaining([[0, 'general'], [2, 'General'], [4, 'Text Channels'], [4, 'Voice Channels']]));
    const general = channels.find((c) => c.name === 'general');
    expect(general).toMatchObject({ guild_id: guild.id, application_id: null, permission_overwrites: [], parent_id: channels.find((c) => c.name === 'Text Channels').id });
    const refused = await t.req('POST', '/guilds', { ...bot(), body: { name: 'Nope' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(20001);
  });

  it('GET /users/@me/guilds lists the caller\'s guilds with banner, owner and permissions; needs the guilds scope', async () => {
    const { guild } = await newGuild('Listed');
    const r = await t.req('GET', '/users/@me/guilds', as(owner));
    expect(r.status).toBe(200);
    const mine = r.body.find((g: any) => g.id === guild.id);
    expect(mine).toMatchObject({ name: 'Listed', banner: null, owner: true });
    expect(BigInt(mine.permissions) & Permission.Administrator).toBe(Permission.Administrator);
    const g = await t.guest('NoScope');
    const noScope = await t.req('GET', '/users/@me/guilds', { token: g.token });
    expect(noScope.status).toBe(403);
  });

  it('answers unknown IDs with the public codes and refuses non-members', async () => {
    const { guild, text } = await newGuild();
    const cases: [string, string, number][] = [
      ['GET', '/guilds/123456789012345678', 10004],
      ['GET', '/guilds/not-a-snowflake', 10004],
      ['GET', '/channels/123456789012345678', 10003],
      ['GET', `/guilds/${guild.id}/roles/123456789012345678`, 10011],
      ['GET', `/guilds/${guild.id}/members/123456789012345678`, 10007],
      ['PUT', `/guilds/${guild.id}/bans/123456789012345678`, 10013],
      ['GET', `/guilds/${guild.id}/bans/123456789012345678`, 10026],
      ['GET', '/invites/nosuchcode', 10006],
      ['POST', '/invites/nosuchcode', 10006],
    ];
    for (const [method, path, code] of cases) {
      const r = await t.req(method, path, { ...as(owner), ...(method === 'PUT' ? { body: {} } : {}) });
      expect([path, r.status, r.body.code]).toEqual([path, 404, code]);
    }
    const outsider = await t.req('GET', `/guilds/${guild.id}`, as(alice));
    expect([outsider.status, outsider.body.code]).toEqual([403, 50001]);
    expect((await t.req('GET', `/channels/${text.id}`, as(alice))).body.code).toBe(50001);
  });

  it('refuses missing permissions with 50013 and writes nothing', async () => {
    const { guild, text } = await newGuild();
    await join(guild.id, text.id, alice);
    const before = (await t.req('GET', `/guilds/${guild.id}/channels`, as(owner))).body.length;
    const attempts: [string, string, unknown][] = [
      ['POST', `/guilds/${guild.id}/channels`, { name: 'sneaky' }],
      ['PATCH', `/guilds/${guild.id}`, { name: 'Renamed' }],
      ['POST', `/guilds/${guild.id}/roles`, { name: 'Boss', permissions: '8' }],
      ['PATCH', `/channels/${text.id}`, { name: 'renamed' }],
      ['DELETE', `/channels/${text.id}`, undefined],
      ['DELETE', `/guilds/${guild.id}/members/${owner.userId}`, undefined],
      ['PUT', `/guilds/${guild.id}/bans/${owner.userId}`, {}],
      ['GET', `/guilds/${guild.id}/prune`, undefined],
      ['GET', `/channels/${text.id}/invites`, undefined],
      ['PATCH', `/guilds/${guild.id}/members/${alice.userId}`, { flags: 4 }],
    ];
    for (const [method, path, body] of attempts) {
      const r = await t.req(method, path, { ...as(alice), ...(body !== undefined ? { body } : {}) });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 403, 50013]);
    }
    expect((await t.req('GET', `/guilds/${guild.id}/channels`, as(owner))).body.length).toBe(before);
    expect((await t.req('GET', `/guilds/${guild.id}`, as(owner))).body.name).toBe('Guild');
    expect((await t.req('GET', `/guilds/${guild.id}/roles`, as(owner))).body.length).toBe(1);
    expect((await t.req('GET', `/guilds/${guild.id}/members/${alice.userId}`, as(owner))).body.flags).toBe(0);
  });

  it('refuses bad bodies with 50035 and the nested errors tree, and writes nothing', async () => {
    const { guild } = await newGuild();
    const long = await t.req('POST', `/guilds/${guild.id}/channels`, { ...as(owner), body: { name: 'x'.repeat(101) } });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe(50035);
    expect(long.body.errors.name._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
    const missing = await t.req('POST', `/guilds/${guild.id}/channels`, { ...as(owner), body: { type: 0 } });
    expect(missing.body.errors.name._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const nested = await t.req('POST', `/guilds/${guild.id}/channels`, { ...as(owner), body: { name: 'ok', permission_overwrites: [{ id: guild.id, type: 0, allow: 'lots' }] } });
    expect(nested.status).toBe(400);
    expect(nested.body.errors.permission_overwrites['0'].allow._errors.length).toBe(1);
    const badType = await t.req('POST', `/guilds/${guild.id}/channels`, { ...as(owner), body: { name: 'ok', type: 15 } });
    expect(badType.status).toBe(400);
    const unknownBit = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'r', permissions: (1n << 62n).toString() } });
    expect([unknownBit.status, unknownBit.body.code]).toEqual([400, 50035]);
    const parent = await t.req('POST', `/guilds/${guild.id}/channels`, { ...as(owner), body: { name: 'child', parent_id: '123456789012345678' } });
    expect(parent.body.errors.parent_id._errors[0].code).toBe('CHANNEL_PARENT_INVALID');
    const gradient = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'g', colors: { primary_color: 1, secondary_color: 2 } } });
    expect(gradient.body.errors.colors._errors[0].code).toBe('ROLE_COLORS_NOT_ALLOWED');
    expect((await t.req('GET', `/guilds/${guild.id}/channels`, as(owner))).body.map((c: any) => c.name)).not.toContain('child');
    expect((await t.req('GET', `/guilds/${guild.id}/roles`, as(owner))).body.length).toBe(1);
  });
});

describe('channels and roles', () => {
  it('omits channels the caller cannot view; overwrites decide', async () => {
    const { guild, text } = await newGuild();
    await join(guild.id, text.id, alice);
    const secret = await t.req('POST', `/guilds/${guild.id}/channels`, {
      ...as(owner),
      body: { name: 'Staff Only', permission_overwrites: [{ id: guild.id, type: 0, deny: Permission.ViewChannel.toString() }] },
    });
    expect(secret.status).toBe(201);
    expect(secret.body.name).toBe('staff-only');
    expect((await t.req('GET', `/guilds/${guild.id}/channels`, as(alice))).body.map((c: any) => c.id)).not.toContain(secret.body.id);
    expect((await t.req('GET', `/channels/${secret.body.id}`, as(alice))).status).toBe(403);
    await t.req('PATCH', `/channels/${secret.body.id}`, {
      ...as(owner),
      body: { permission_overwrites: [{ id: guild.id, type: 0, deny: Permission.ViewChannel.toString() }, { id: alice.userId, type: 1, allow: Permission.ViewChannel.toString() }] },
    });
    expect((await t.req('GET', `/guilds/${guild.id}/channels`, as(alice))).body.map((c: any) => c.id)).toContain(secret.body.id);
    expect((await t.req('GET', `/guilds/${guild.id}/channels`, as(bob))).status).toBe(403);
  });

  it('creates, modifies, counts, reorders and deletes roles, with 64-bit permissions as strings', async () => {
    const { guild, text } = await newGuild();
    await join(guild.id, text.id, alice);
    const pin = (Permission.PinMessages | Permission.ManageRoles | Permission.ManageChannels).toString();
    const mod = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'Mod', permissions: pin, color: 0xff0000, hoist: true } });
    expect(mod.status).toBe(200);
    expect(mod.body).toMatchObject({ name: 'Mod', permissions: pin, color: 0xff0000, colors: { primary_color: 0xff0000, secondary_color: null, tertiary_color: null }, hoist: true, managed: false });
    const low = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'Low' } });
    expect((await t.req('PUT', `/guilds/${guild.id}/members/${alice.userId}/roles/${mod.body.id}`, as(owner))).status).toBe(204);
    expect((await t.req('GET', `/guilds/${guild.id}/roles/member-counts`, as(owner))).body).toEqual({ [mod.body.id]: 1, [low.body.id]: 0 });
    // Alice (Mod) cannot touch a role at or above her own; she can manage one below after a reorder.
    expect((await t.req('PATCH', `/guilds/${guild.id}/roles/${mod.body.id}`, { ...as(alice), body: { name: 'Admin' } })).body.code).toBe(50013);
    const reordered = await t.req('PATCH', `/guilds/${guild.id}/roles`, { ...as(owner), body: [{ id: low.body.id, position: 1 }, { id: mod.body.id, position: 2 }] });
    expect(reordered.status).toBe(200);
    expect((await t.req('PATCH', `/guilds/${guild.id}/roles/${low.body.id}`, { ...as(alice), body: { name: 'Lower' } })).body.name).toBe('Lower');
    // She cannot grant a bit she lacks.
    expect((await t.req('PATCH', `/guilds/${guild.id}/roles/${low.body.id}`, { ...as(alice), body: { permissions: Permission.BanMembers.toString() } })).body.code).toBe(50013);
    await t.req('PATCH', `/guilds/${guild.id}`, { ...as(owner), body: { features: ['ENHANCED_ROLE_COLORS'] } });
    const grad = await t.req('PATCH', `/guilds/${guild.id}/roles/${low.body.id}`, { ...as(owner), body: { colors: { primary_color: 1, secondary_color: 2, tertiary_color: null } } });
    expect(grad.body.colors).toEqual({ primary_color: 1, secondary_color: 2, tertiary_color: null });
    expect(grad.body.color).toBe(1);
    expect((await t.req('DELETE', `/guilds/${guild.id}/roles/${low.body.id}`, as(owner))).status).toBe(204);
    expect((await t.req('GET', `/guilds/${guild.id}/roles/${low.body.id}`, as(owner))).body.code).toBe(10011);
  });
});

describe('members, bans, prune', () => {
  it('modifies members (flags need their permission), Modify Current Member sets nick, banner, avatar, bio', async () => {
    const { guild, text } = await newGuild();
    await join(guild.id, text.id, alice);
    const notPng = `data:image/png;base64,${Buffer.from('not an image').toString('base64')}`;
    const fake = await t.req('PATCH', `/guilds/${guild.id}/members/@me`, { ...as(alice), body: { avatar: notPng } });
    expect([fake.status, fake.body.errors?.avatar?._errors[0].code]).toEqual([400, 'IMAGE_INVALID']);
    // Names are stored trimmed: one of only spaces would be empty, so it is refused as that length.
    for (const [method, path, body] of [['POST', '/guilds', { name: '   ' }], ['PATCH', `/guilds/${guild.id}`, { name: '  ' }], ['POST', `/guilds/${guild.id}/channels`, { name: ' ', type: 0 }], ['POST', `/guilds/${guild.id}/roles`, { name: '  ' }]] as const) {
      const blank = await t.req(method, path, { ...as(owner), body });
      expect([blank.status, blank.body.errors?.name?._errors[0].code], path).toEqual([400, 'BASE_TYPE_BAD_LENGTH']);
    }
    const fakeIcon = await t.req('PATCH', `/guilds/${guild.id}`, { ...as(owner), body: { icon: notPng } });
    expect([fakeIcon.status, fakeIcon.body.errors?.icon?._errors[0].code]).toEqual([400, 'IMAGE_INVALID']);
    const me = await t.req('PATCH', `/guilds/${guild.id}/members/@me`, { ...as(alice), body: { nick: 'Ali', bio: 'hello there', banner: PNG, avatar: PNG } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ nick: 'Ali', bio: 'hello there', banner: expect.stringMatching(/^[0-9a-f]{32}$/), avatar: expect.stringMatching(/^[0-9a-f]{32}$/), user: { id: alice.userId } });
    const notImage = await t.req('PATCH', `/guilds/${guild.id}/members/@me`, { ...as(alice), body: { banner: 'javascript:alert(1)' } });
    expect([notImage.status, notImage.body.code]).toEqual([400, 50035]);
    const flagged = await t.req('PATCH', `/guilds/${guild.id}/members/${alice.userId}`, { ...as(owner), body: { flags: 4 } });
    expect(flagged.body.flags).toBe(4);
    const badFlag = await t.req('PATCH', `/guilds/${guild.id}/members/${alice.userId}`, { ...as(owner), body: { flags: 1 } });
    expect([badFlag.status, badFlag.body.code]).toEqual([400, 50035]);
    expect((await t.req('GET', `/guilds/${guild.id}/members/search?query=ali`, as(owner))).body.map((m: any) => m.user.id)).toEqual([alice.userId]);
    const list = await t.req('GET', `/guilds/${guild.id}/members?limit=10`, as(owner));
    expect(list.body.map((m: any) => m.user.id).sort()).toEqual([owner.userId, alice.userId].sort());
  });

  it('kicks, bans (the banned cannot rejoin: 40007) and unbans', async () => {
    const { guild, text } = await newGuild();
    await join(guild.id, text.id, alice);
    await join(guild.id, text.id, bob);
    expect((await t.req('DELETE', `/guilds/${guild.id}/members/${bob.userId}`, as(owner))).status).toBe(204);
    expect((await t.req('GET', `/guilds/${guild.id}/members/${bob.userId}`, as(owner))).body.code).toBe(10007);
    expect((await t.req('PUT', `/guilds/${guild.id}/bans/${alice.userId}`, { ...as(owner), body: { reason: 'rude' } })).status).toBe(204);
    expect((await t.req('GET', `/guilds/${guild.id}/bans`, as(owner))).body).toEqual([{ reason: 'rude', user: expect.objectContaining({ id: alice.userId }) }]);
    const inv = await t.req('POST', `/channels/${text.id}/invites`, { ...as(owner), body: {} });
    const back = await t.req('POST', `/invites/${inv.body.code}`, as(alice));
    expect([back.status, back.body.code]).toEqual([403, 40007]);
    expect((await t.req('DELETE', `/guilds/${guild.id}/bans/${alice.userId}`, as(owner))).status).toBe(204);
    expect((await t.req('POST', `/invites/${inv.body.code}`, as(alice))).status).toBe(200);
  });

  it('prune count matches the members prune removes: joined more than `days` ago, no roles but include_roles (a subset), both need MANAGE_GUILD and KICK_MEMBERS', async () => {
    const { guild, text } = await newGuild();
    const carol = await userWithGuildsScope('Carol');
    const dave = await userWithGuildsScope('Dave');
    const eve = await userWithGuildsScope('Eve');
    for (const u of [alice, bob, carol, dave, eve]) await join(guild.id, text.id, u);
    const keep = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'Keep' } });
    const other = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'Other' } });
    // alice: Keep; carol: Keep and Other (not a subset of include_roles=Keep); bob and dave: no roles.
    await t.req('PUT', `/guilds/${guild.id}/members/${alice.userId}/roles/${keep.body.id}`, as(owner));
    await t.req('PUT', `/guilds/${guild.id}/members/${carol.userId}/roles/${keep.body.id}`, as(owner));
    await t.req('PUT', `/guilds/${guild.id}/members/${carol.userId}/roles/${other.body.id}`, as(owner));
    // Joined 10 days ago, all but eve (joined now; we keep no activity record: tenure stands in for inactivity).
    await t.server.store.database.db.updateTable('guild_members').set({ joined_at: Date.now() - 10 * 86_400_000 }).where('guild_id', '=', guild.id).where('user_id', '!=', eve.userId).execute();
    const members = async () => ((await t.req('GET', `/guilds/${guild.id}/members?limit=100`, as(owner))).body as any[]).map((m) => m.user.id).sort();
    const everyone = await members();
    expect(everyone.length).toBe(6);

    // The count: bob and dave (no roles, 10 days); with include_roles=Keep also alice; never carol,
    // eve (too recent) or the owner. days=30: nobody. Default days = 7.
    expect((await t.req('GET', `/guilds/${guild.id}/prune?days=7`, as(owner))).body).toEqual({ pruned: 2 });
    expect((await t.req('GET', `/guilds/${guild.id}/prune`, as(owner))).body).toEqual({ pruned: 2 });
    expect((await t.req('GET', `/guilds/${guild.id}/prune?days=7&include_roles=${keep.body.id}`, as(owner))).body).toEqual({ pruned: 3 });
    expect((await t.req('GET', `/guilds/${guild.id}/prune?days=7&include_roles=${keep.body.id},${other.body.id}`, as(owner))).body).toEqual({ pruned: 4 });
    expect((await t.req('GET', `/guilds/${guild.id}/prune?days=30`, as(owner))).body).toEqual({ pruned: 0 });

    // Refusals write nothing: bad days (50035), an unknown role in include_roles (10011).
    for (const days of [0, 31]) {
      const r = await t.req('POST', `/guilds/${guild.id}/prune`, { ...as(owner), body: { days } });
      expect([r.status, r.body.code]).toEqual([400, 50035]);
      expect((await t.req('GET', `/guilds/${guild.id}/prune?days=${days}`, as(owner))).body.code).toBe(50035);
    }
    const unknownRole = await t.req('POST', `/guilds/${guild.id}/prune`, { ...as(owner), body: { days: 7, include_roles: ['123456789012345678'] } });
    expect([unknownRole.status, unknownRole.body.code]).toEqual([404, 10011]);
    // KICK_MEMBERS alone, or MANAGE_GUILD alone, is not enough for either route (50013, nothing removed).
    const helper = await userWithGuildsScope('Helper');
    await join(guild.id, text.id, helper);
    for (const bits of [Permission.KickMembers, Permission.ManageGuild]) {
      const role = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'Partial', permissions: bits.toString() } });
      await t.req('PUT', `/guilds/${guild.id}/members/${helper.userId}/roles/${role.body.id}`, as(owner));
      expect((await t.req('GET', `/guilds/${guild.id}/prune`, as(helper))).body.code).toBe(50013);
      const refused = await t.req('POST', `/guilds/${guild.id}/prune`, { ...as(helper), body: { days: 7 } });
      expect([refused.status, refused.body.code]).toEqual([403, 50013]);
      await t.req('DELETE', `/guilds/${guild.id}/members/${helper.userId}/roles/${role.body.id}`, as(owner));
    }
    expect(await members()).toEqual([...everyone, helper.userId].sort());

    // Begin prune with the same parameters removes exactly the counted members.
    const counted = (await t.req('GET', `/guilds/${guild.id}/prune?days=7&include_roles=${keep.body.id}`, as(owner))).body.pruned;
    const begun = await t.req('POST', `/guilds/${guild.id}/prune`, { ...as(owner), body: { days: 7, include_roles: [keep.body.id] } });
    expect(begun.body).toEqual({ pruned: counted });
    expect(await members()).toEqual([owner.userId, carol.userId, eve.userId, helper.userId].sort());
    // compute_prune_count: false answers pruned: null (the public shape for large guilds).
    await t.server.store.database.db.updateTable('guild_members').set({ joined_at: Date.now() - 10 * 86_400_000 }).where('guild_id', '=', guild.id).where('user_id', '=', eve.userId).execute();
    const quiet = await t.req('POST', `/guilds/${guild.id}/prune`, { ...as(owner), body: { days: 7, compute_prune_count: false } });
    expect([quiet.status, quiet.body]).toEqual([200, { pruned: null }]);
    expect(await members()).toEqual([owner.userId, carol.userId, helper.userId].sort());
  });
});

describe('invites', () => {
  it('grants role_ids on accept, counts uses up to max_uses, and lists invites with the role partial', async () => {
    const { guild, text } = await newGuild();
    const role = await t.req('POST', `/guilds/${guild.id}/roles`, { ...as(owner), body: { name: 'Guest', color: 5 } });
    const inv = await t.req('POST', `/channels/${text.id}/invites`, { ...as(owner), body: { max_age: 3600, max_uses: 1, role_ids: [role.body.id] } });
    expect(inv.body).toMatchObject({ code: expect.any(String), max_uses: 1, max_age: 3600, uses: 0, guild: { id: guild.id }, channel: { id: text.id } });
    const listed = await t.req('GET', `/channels/${text.id}/invites`, as(owner));
    expect(listed.body[0].roles).toEqual([{ id: role.body.id, name: 'Guest', position: 1, color: 5, colors: { primary_color: 5, secondary_color: null, tertiary_color: null }, icon: null, unicode_emoji: null }]);
    expect((await t.req('POST', `/invites/${inv.body.code}`, as(alice))).status).toBe(200);
    expect((await t.req('GET', `/guilds/${guild.id}/members/${alice.userId}`, as(owner))).body.roles).toEqual([role.body.id]);
    expect((await t.req('POST', `/invites/${inv.body.code}`, as(bob))).body.code).toBe(10006);
    expect((await t.req('GET', `/guilds/${guild.id}/members/${bob.userId}`, as(owner))).body.code).toBe(10007);
  });

  it('target users: only listed users may accept; Get Target Users is a CSV with the one header user_id', async () => {
    const { guild, text } = await newGuild();
    const inv = await t.req('POST', `/channels/${text.id}/invites`, { ...as(owner), body: { target_user_ids: [bob.userId] } });
    const csv = await fetch(`${t.api}/invites/${inv.body.code}/target-users`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(await csv.text()).toBe(`user_id\n${bob.userId}\n`);
    expect((await t.req('POST', `/invites/${inv.body.code}`, as(alice))).body.code).toBe(10006);
    expect((await t.req('PUT', `/invites/${inv.body.code}/target-users`, { ...as(owner), body: { target_user_ids: [alice.userId, bob.userId] } })).status).toBe(204);
    const again = await fetch(`${t.api}/invites/${inv.body.code}/target-users`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect((await again.text()).trim().split('\n').slice(1).sort()).toEqual([alice.userId, bob.userId].sort());
    expect((await t.req('GET', `/invites/${inv.body.code}/target-users/job-status`, as(owner))).body).toMatchObject({ status: 2, total_users: 2, processed_users: 2 });
    expect((await t.req('POST', `/invites/${inv.body.code}`, as(alice))).status).toBe(200);
    expect((await t.req('GET', `/guilds/${guild.id}/members/${alice.userId}`, as(owner))).status).toBe(200);
    expect((await t.req('DELETE', `/invites/${inv.body.code}`, as(owner))).status).toBe(200);
    expect((await t.req('GET', `/invites/${inv.body.code}`, as(owner))).body.code).toBe(10006);
  });

  it('target_users_file: a CSV uploaded as multipart comes back the same from Get Target Users; a bad line writes nothing', async () => {
    const { guild, text } = await newGuild();
    const post = (form: FormData, path = `/channels/${text.id}/invites`, method = 'POST') =>
      fetch(`${t.api}${path}`, { method, headers: { authorization: `Bearer ${owner.token}` }, body: form });
    const form = new FormData();
    form.set('payload_json', JSON.stringify({ max_age: 600, max_uses: 10 }));
    form.set('target_users_file', new Blob([`user_id\r\n${bob.userId}\r\n${alice.userId}\r\n`], { type: 'text/csv' }), 'users.csv');
    const res = await post(form);
    expect(res.status).toBe(200);
    const invite = (await res.json()) as any;
    expect(invite).toMatchObject({ max_age: 600, max_uses: 10 });
    const csv = await (await fetch(`${t.api}/invites/${invite.code}/target-users`, { headers: { authorization: `Bearer ${owner.token}` } })).text();
    expect(csv.split('\n')[0]).toBe('user_id');
    expect(csv.trim().split('\n').slice(1).sort()).toEqual([alice.userId, bob.userId].sort());
    const update = new FormData();
    update.set('target_users_file', new Blob([`user_id\n${alice.userId}\n`], { type: 'text/csv' }), 'users.csv');
    expect((await post(update, `/invites/${invite.code}/target-users`, 'PUT')).status).toBe(204);
    expect(await (await fetch(`${t.api}/invites/${invite.code}/target-users`, { headers: { authorization: `Bearer ${owner.token}` } })).text()).toBe(`user_id\n${alice.userId}\n`);
    expect((await t.req('POST', `/invites/${invite.code}`, as(bob))).body.code).toBe(10006);
    expect((await t.req('POST', `/invites/${invite.code}`, as(alice))).status).toBe(200);

    const before = (await t.req('GET', `/channels/${text.id}/invites`, as(owner))).body.length;
    const bad = new FormData();
    bad.set('target_users_file', new Blob([`user_id\n${bob.userId}\nnot-an-id\n`], { type: 'text/csv' }), 'users.csv');
    const refused = await post(bad);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as any;
    expect(body.code).toBe(50035);
    expect(body.errors.target_users_file['1']._errors[0].message).toContain('Line 3');
    const tooBig = new FormData();
    tooBig.set('target_users_file', new Blob([`user_id\n${bob.userId}\n${2n ** 64n}\n`], { type: 'text/csv' }), 'users.csv');
    const past64 = await post(tooBig);
    expect(past64.status).toBe(400);
    expect(((await past64.json()) as any).errors.target_users_file['1']._errors[0].code).toBe('NUMBER_TYPE_COERCE');
    const badJson = new FormData();
    badJson.set('payload_json', JSON.stringify({ max_uses: 1000 }));
    expect((await post(badJson)).status).toBe(400);
    expect((await t.req('GET', `/channels/${text.id}/invites`, as(owner))).body.length).toBe(before);
    void guild;
  });

  it('a bot installed in a guild gets a managed role named after its application', async () => {
    const { guild } = await newGuild();
    // The routes made the services for this store already (with the server's bus): the same instance.
    const services = guildServicesFor(t.server.store, undefined as never);
    const { roleId } = await services.installBot(guild.id, t.app.id, Permission.ViewChannel | Permission.ManageChannels);
    const role = await t.req('GET', `/guilds/${guild.id}/roles/${roleId}`, bot());
    expect(role.body).toMatchObject({ managed: true, permissions: (Permission.ViewChannel | Permission.ManageChannels).toString(), tags: { bot_id: expect.any(String) } });
    const del = await t.req('DELETE', `/guilds/${guild.id}/roles/${roleId}`, as(owner));
    expect(del.body.code).toBe(50013);
  });
});

describe('GET /users/@me/connections', () => {
  it('lists linked identities of public connection kinds, leaves out the hidden kind, and needs the connections scope', async () => {
    const g = await t.guest('Linked');
    const db = t.server.store.database.db;
    const now = Date.now();
    const link = async (authType: string, externalId: string, providerType: string, issued: string, username: string) => {
      await db.insertInto('external_identities').values({ application_id: t.app.id, auth_type: authType, external_id: externalId, user_id: g.userId, created_at: now }).execute();
      await db.insertInto('application_profiles' as never).values({ application_id: t.app.id, auth_type: authType, external_id: externalId, provider_type: providerType, provider_id: null, provider_issued_user_id: issued, username, avatar_hash: null, metadata: null, updated_at: now } as never).execute();
    };
    await link('EPIC', 'e1', 'EPIC_ONLINE_SERVICES', 'epic-42', 'EpicPat');
    await link('XB', 'x1', 'XBOX', 'xbox-7', 'XPat');
    await link('OIDC', 'o1', 'OIDC', 'sub-1', 'plain');
    const token = await t.server.store.tokens.issue(g.userId, t.app.id, ['identify', 'connections'], 3600);
    const r = await t.req('GET', '/users/@me/connections', { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{ id: 'epic-42', name: 'EpicPat', type: 'epicgames', verified: true, friend_sync: false, show_activity: true, two_way_link: false, visibility: 0 }]);
    expect((await t.req('GET', '/users/@me/connections', { token: g.token })).status).toBe(403);
    expect((await t.req('GET', '/users/@me/connections', { token: t.app.botToken, bot: true })).status).toBe(403);
    const { userConnections, hiddenConnectionTypes } = await import('../src/guilds/connections.ts');
    expect((await userConnections(t.server.store, g.userId, hiddenConnectionTypes(''))).map((c) => c.type).sort()).toEqual(['epicgames', 'xbox']);
  });
});
