import { describe, expect, it } from 'vitest';
import {
  ALL_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, Permission, basePermissions, channelPermissions, everyoneViews, formatPermissions, has, mayDo,
  missing, parsePermissions, type Overwrite, type PermissionSubject,
} from '../src/guilds/permissions.ts';

const P = Permission;
const G = '100000000000000000';
const OWNER = '100000000000000001';
const ME = '100000000000000002';
const MOD = '100000000000000010';
const MUTED = '100000000000000011';

function subject(over: Partial<PermissionSubject> = {}): PermissionSubject {
  return { guildId: G, ownerId: OWNER, userId: ME, everyone: P.ViewChannel | P.SendMessages | P.ReadMessageHistory, roles: [], ...over };
}
const ow = (id: string, type: 0 | 1, allow: bigint, deny: bigint): Overwrite => ({ id, type, allow: allow.toString(), deny: deny.toString() });

describe('permission bits', () => {
  it('has the bits the spec names at their public positions', () => {
    expect(P.SetVoiceChannelStatus).toBe(1n << 48n);
    expect(P.UseExternalApps).toBe(1n << 50n);
    expect(P.PinMessages).toBe(1n << 51n);
    expect(P.BypassSlowmode).toBe(1n << 52n);
    expect(P.CreateGuildExpressions).toBe(1n << 43n);
    expect(P.CreateEvents).toBe(1n << 44n);
  });

  it('reads and writes 64-bit decimal strings, refusing unknown bits and non-numbers', () => {
    const v = P.PinMessages | P.BypassSlowmode | 1n;
    expect(parsePermissions(formatPermissions(v))).toBe(v);
    expect(formatPermissions(v)).toBe('6755399441055745');
    expect(parsePermissions('0')).toBe(0n);
    expect(parsePermissions(ALL_PERMISSIONS.toString())).toBe(ALL_PERMISSIONS);
    expect(parsePermissions((1n << 63n).toString())).toBeUndefined();
    expect(parsePermissions('18446744073709551616')).toBeUndefined();
    expect(parsePermissions('-1')).toBeUndefined();
    expect(parsePermissions('1e3')).toBeUndefined();
    expect(parsePermissions('')).toBeUndefined();
  });
});

/**
 * The table: each row is a member (roles, owner or not), the channel's overwrites, and the bits
 * that must and must not come out. The order under test: base role permissions, @everyone
 * overwrite, role overwrites, member overwrite; ADMINISTRATOR and ownership override all.
 */
const table: { name: string; s: Partial<PermissionSubject>; overwrites: Overwrite[]; yes: bigint[]; no: bigint[] }[] = [
  { name: 'base: @everyone alone', s: {}, overwrites: [], yes: [P.ViewChannel, P.SendMessages], no: [P.ManageChannels, P.KickMembers] },
  { name: 'base: roles OR into @everyone', s: { roles: [{ id: MOD, permissions: P.KickMembers }] }, overwrites: [], yes: [P.KickMembers, P.SendMessages], no: [P.BanMembers] },
  { name: '@everyone overwrite denies a base bit', s: {}, overwrites: [ow(G, 0, 0n, P.SendMessages)], yes: [P.ViewChannel], no: [P.SendMessages] },
  { name: '@everyone overwrite allows a bit', s: {}, overwrites: [ow(G, 0, P.AddReactions, 0n)], yes: [P.AddReactions], no: [] },
  { name: 'role overwrite allow beats @everyone overwrite deny', s: { roles: [{ id: MOD, permissions: 0n }] }, overwrites: [ow(G, 0, 0n, P.SendMessages), ow(MOD, 0, P.SendMessages, 0n)], yes: [P.SendMessages], no: [] },
  {
    name: 'role overwrites: allow of one role beats deny of another (denies first, then allows)',
    s: { roles: [{ id: MOD, permissions: 0n }, { id: MUTED, permissions: 0n }] },
    overwrites: [ow(MUTED, 0, 0n, P.SendMessages), ow(MOD, 0, P.SendMessages, 0n)],
    yes: [P.SendMessages], no: [],
  },
  { name: 'role overwrite of a role the member lacks is ignored', s: {}, overwrites: [ow(MOD, 0, P.ManageMessages, 0n)], yes: [], no: [P.ManageMessages] },
  { name: 'member overwrite deny beats role overwrite allow', s: { roles: [{ id: MOD, permissions: 0n }] }, overwrites: [ow(MOD, 0, P.SendMessages, 0n), ow(ME, 1, 0n, P.SendMessages)], yes: [P.ViewChannel], no: [P.SendMessages] },
  { name: 'member overwrite allow beats @everyone deny', s: {}, overwrites: [ow(G, 0, 0n, P.SendMessages), ow(ME, 1, P.SendMessages, 0n)], yes: [P.SendMessages], no: [] },
  { name: 'member overwrite of someone else is ignored', s: {}, overwrites: [ow(OWNER, 1, 0n, P.SendMessages)], yes: [P.SendMessages], no: [] },
  { name: 'no VIEW_CHANNEL: nothing in the channel', s: {}, overwrites: [ow(G, 0, P.ManageMessages, P.ViewChannel)], yes: [], no: [P.SendMessages, P.ReadMessageHistory, P.ManageMessages] },
  { name: 'no SEND_MESSAGES: no mentions, embeds or attachments', s: { everyone: P.ViewChannel | P.SendMessages | P.MentionEveryone | P.AttachFiles }, overwrites: [ow(G, 0, 0n, P.SendMessages)], yes: [P.ViewChannel], no: [P.MentionEveryone, P.AttachFiles] },
  { name: 'ADMINISTRATOR overrides every overwrite', s: { roles: [{ id: MOD, permissions: P.Administrator }] }, overwrites: [ow(G, 0, 0n, P.ViewChannel), ow(ME, 1, 0n, P.SendMessages)], yes: [P.ViewChannel, P.SendMessages, P.BanMembers, P.PinMessages], no: [] },
  { name: 'the owner has everything, whatever the overwrites', s: { userId: OWNER, everyone: 0n }, overwrites: [ow(OWNER, 1, 0n, ALL_PERMISSIONS)], yes: [P.ViewChannel, P.ManageGuild, P.Administrator], no: [] },
  { name: 'a timed-out member keeps only reading', s: { timedOutUntil: Date.now() + 60_000 }, overwrites: [], yes: [P.ViewChannel, P.ReadMessageHistory], no: [P.SendMessages] },
  { name: 'an expired timeout changes nothing', s: { timedOutUntil: Date.now() - 1 }, overwrites: [], yes: [P.SendMessages], no: [] },
];

describe('channel permissions, by table', () => {
  it.each(table)('$name', ({ s, overwrites, yes, no }) => {
    const perms = channelPermissions(subject(s), overwrites);
    for (const bit of yes) expect(missing(perms, bit), `should have ${bit}`).toEqual([]);
    for (const bit of no) expect((perms & bit) === 0n, `should not have ${missing(0n, bit)}`).toBe(true);
  });

  it('base permissions ignore overwrites; ADMINISTRATOR in any role gives all', () => {
    expect(basePermissions(subject())).toBe(P.ViewChannel | P.SendMessages | P.ReadMessageHistory);
    expect(basePermissions(subject({ roles: [{ id: MOD, permissions: P.Administrator }] }))).toBe(ALL_PERMISSIONS);
    expect(basePermissions(subject({ userId: OWNER, everyone: 0n }))).toBe(ALL_PERMISSIONS);
  });
});

describe('the permission split of 2026-02-23', () => {
  it('MANAGE_MESSAGES, MANAGE_GUILD_EXPRESSIONS and MANAGE_EVENTS alone no longer suffice', () => {
    const old = P.ManageMessages | P.ManageGuildExpressions | P.ManageEvents;
    expect(mayDo(old, 'pinMessage')).toBe(false);
    expect(mayDo(old, 'bypassSlowmode')).toBe(false);
    expect(mayDo(old, 'createEmoji')).toBe(false);
    expect(mayDo(old, 'createScheduledEvent')).toBe(false);
    expect(mayDo(old, 'deleteOthersMessage')).toBe(true);
    expect(mayDo(old, 'manageOthersEmoji')).toBe(true);
  });

  it('the new bits alone allow the new actions', () => {
    expect(mayDo(P.PinMessages, 'pinMessage')).toBe(true);
    expect(mayDo(P.BypassSlowmode, 'bypassSlowmode')).toBe(true);
    expect(mayDo(P.CreateGuildExpressions, 'createEmoji')).toBe(true);
    expect(mayDo(P.CreateEvents, 'createScheduledEvent')).toBe(true);
    expect(mayDo(P.CreateGuildExpressions, 'manageOthersEmoji')).toBe(false);
  });

  it('prune needs MANAGE_GUILD besides KICK_MEMBERS', () => {
    expect(mayDo(P.KickMembers, 'pruneMembers')).toBe(false);
    expect(mayDo(P.ManageGuild, 'pruneMembers')).toBe(false);
    expect(mayDo(P.KickMembers | P.ManageGuild, 'pruneMembers')).toBe(true);
  });

  it('@everyone in a new guild may create expressions and events but manage nothing', () => {
    expect(mayDo(DEFAULT_EVERYONE_PERMISSIONS, 'createEmoji')).toBe(true);
    expect(mayDo(DEFAULT_EVERYONE_PERMISSIONS, 'createScheduledEvent')).toBe(true);
    expect(missing(DEFAULT_EVERYONE_PERMISSIONS, P.ManageGuild | P.ManageRoles | P.ManageChannels | P.KickMembers | P.BanMembers | P.Administrator).length).toBe(6);
  });
});

describe('everyoneViews (GuildEvents sends to every member without reading their roles)', () => {
  // A small seeded generator, so a failure names a case that can be replayed.
  function rng(seed: number) {
    let x = seed >>> 0 || 1;
    return () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
  }
  const ROLES = ['200000000000000001', '200000000000000002', '200000000000000003'];
  const USERS = [OWNER, ME, MOD, MUTED, '100000000000000012'];
  const BITS = [P.ViewChannel, P.SendMessages, P.Administrator, P.ReadMessageHistory, P.ManageChannels];

  it('says yes only when every member, whatever their roles, overwrites and timeout, can view the channel', () => {
    let yes = 0;
    let no = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const r = rng(seed);
      const pick = (p: number) => BITS.reduce((acc, b) => (r() < p ? acc | b : acc), 0n);
      const everyone = pick(0.5);
      const rolePerms = new Map(ROLES.map((id) => [id, pick(0.3)]));
      const overwrites: Overwrite[] = [];
      for (const id of [G, ...ROLES]) if (r() < 0.4) overwrites.push(ow(id, 0, pick(0.3), pick(0.3)));
      for (const id of USERS) if (r() < 0.2) overwrites.push(ow(id, 1, pick(0.3), pick(0.3)));
      // Every combination of held roles, for every user, with and without a running timeout.
      let all = true;
      for (const userId of USERS) {
        for (let mask = 0; mask < 1 << ROLES.length; mask++) {
          for (const timedOutUntil of [null, Date.now() + 60_000]) {
            const roles = ROLES.filter((_, i) => mask & (1 << i)).map((id) => ({ id, permissions: rolePerms.get(id)! }));
            if (!has(channelPermissions(subject({ userId, everyone, roles, timedOutUntil }), overwrites), P.ViewChannel)) all = false;
          }
        }
      }
      const says = everyoneViews(everyone, overwrites);
      // Never yes when someone cannot view (that member would get a channel it may not see).
      if (says) expect([seed, all]).toEqual([seed, true]);
      // A no is only ever the two stated reasons (then GuildEvents checks member by member).
      const denied = overwrites.some((o) => (BigInt(o.deny) & P.ViewChannel) !== 0n);
      const base = has(everyone, P.ViewChannel) || has(everyone, P.Administrator);
      expect([seed, says]).toEqual([seed, base && !denied]);
      if (says) yes++;
      else if (!all) no++;
    }
    // Both answers were exercised, many times.
    expect(yes).toBeGreaterThan(100);
    expect(no).toBeGreaterThan(100);
  });
});
