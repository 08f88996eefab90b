// The web app's pure parts, in Node: the sidebar's channel order (by category, in `position`
// order), the member list's grouping by hoisted role, the app's paths, and the wire numbers it
// keeps locally instead of bundling discord-api-types' enums (checked against them here).
import { ChannelType, GatewayIntentBits, GatewayOpcodes, type APIGuildMember, type APIRole } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { Channel, Intent, Op } from '../web/src/api/wire.ts';
import { channelTree, defaultChannel, type GuildChannel } from '../web/src/model/channels.ts';
import { memberGroups, memberName, roleColor } from '../web/src/model/members.ts';
import { Reloads, serialReload } from '../web/src/state/reloads.ts';
import { parseRoute, routePath } from '../web/src/state/routes.ts';

const ch = (id: string, name: string, type: number, position: number, parent_id: string | null = null): GuildChannel => ({ id, name, type, position, parent_id });

describe('channelTree', () => {
  it('lists channels without a category first, then each category by position, each list by position with ties by ID', () => {
    const tree = channelTree([
      ch('10', 'voice-cat', 4, 2),
      ch('11', 'text-cat', 4, 1),
      ch('20', 'lounge', 2, 0, '10'),
      ch('21', 'zeta', 0, 5, '11'),
      ch('22', 'alpha', 0, 1, '11'),
      ch('24', 'tie-later', 0, 3, '11'),
      ch('23', 'tie-earlier', 0, 3, '11'),
      ch('30', 'loose-b', 0, 9),
      ch('31', 'loose-a', 0, 0),
      // Its category is not visible to the caller: shown without one rather than hidden.
      ch('32', 'orphan', 0, 4, '99'),
    ]);
    expect(tree.map((g) => [g.category?.name ?? null, g.channels.map((c) => c.name)])).toEqual([
      [null, ['loose-a', 'orphan', 'loose-b']],
      ['text-cat', ['alpha', 'tie-earlier', 'tie-later', 'zeta']],
      ['voice-cat', ['lounge']],
    ]);
  });

  it('keeps empty categories and gives no loose group when every channel has a category', () => {
    expect(channelTree([ch('1', 'empty', 4, 0), ch('2', 'cat', 4, 1), ch('3', 'x', 0, 0, '2')]).map((g) => [g.category?.name, g.channels.length])).toEqual([
      ['empty', 0],
      ['cat', 1],
    ]);
  });
});

describe('defaultChannel', () => {
  it('opens on the first text channel by position (ties by ID), not the sidebar\'s first: a later channel outside any category does not win', () => {
    const guild = [ch('1', 'Text Channels', 4, 0), ch('2', 'Voice Channels', 4, 1), ch('3', 'general', 0, 0, '1'), ch('4', 'General', 2, 0, '2')];
    // What the owner created afterwards, without a category: first in the sidebar, not opened.
    const made = ch('5', 'new-channel', 0, 0);
    expect(channelTree([...guild, made])[0]!.channels[0]!.name).toBe('new-channel');
    expect(defaultChannel([...guild, made])?.name).toBe('general');
    expect(defaultChannel([ch('9', 'later', 5, 0), ch('8', 'earlier', 0, 0), ch('7', 'moved-up', 0, -1, '1')])?.name).toBe('moved-up');
    expect(defaultChannel([ch('9', 'later', 5, 2), ch('8', 'earlier', 0, 2)])?.name).toBe('earlier');
    expect(defaultChannel([ch('1', 'cat', 4, 0), ch('2', 'voice', 2, 0)])).toBeNull();
  });
});

describe('memberGroups', () => {
  const role = (id: string, name: string, position: number, hoist: boolean, color = 0): APIRole =>
    ({ id, name, position, hoist, color, colors: { primary_color: color, secondary_color: null, tertiary_color: null }, permissions: '0', managed: false, mentionable: false, flags: 0, icon: null, unicode_emoji: null }) as unknown as APIRole;
  const member = (id: string, name: string, roles: string[], nick: string | null = null): APIGuildMember =>
    ({ user: { id, username: name.toLowerCase(), global_name: name, discriminator: '0', avatar: null }, nick, roles, joined_at: '2026-01-01T00:00:00Z', deaf: false, mute: false, flags: 0 }) as unknown as APIGuildMember;

  it('groups members under their highest hoisted role (highest first), the rest under Members, names alphabetical, roles highest first without @everyone', () => {
    const roles = [role('g', '@everyone', 0, false), role('a', 'Admins', 3, true, 0xff0000), role('m', 'Mods', 2, true), role('v', 'VIP', 5, false, 0x00ff00)];
    const groups = memberGroups(
      [member('1', 'Zoe', ['m']), member('2', 'Ann', ['m', 'a', 'v']), member('3', 'Bob', []), member('4', 'Cy', ['v', 'gone']), member('5', 'Al', ['m'], 'Aardvark')],
      roles,
      'g',
    );
    expect(groups.map((g) => [g.role?.name ?? 'Members', g.members.map((m) => memberName(m.member))])).toEqual([
      ['Admins', ['Ann']],
      ['Mods', ['Aardvark', 'Zoe']],
      ['Members', ['Bob', 'Cy']],
    ]);
    expect(groups[0]!.members[0]!.roles.map((r) => r.name)).toEqual(['VIP', 'Admins', 'Mods']);
    expect(roleColor(roles[1]!)).toBe('#ff0000');
    expect(roleColor(roles[2]!)).toBeNull();
    // The gradient's first colour wins over the deprecated `color`; a role without `colors` (an
    // older payload) falls back to `color`.
    expect(roleColor({ ...roles[2]!, color: 0xabcdef, colors: { primary_color: 0x123456, secondary_color: null, tertiary_color: null } })).toBe('#123456');
    expect(roleColor({ ...roles[2]!, color: 0xabcdef, colors: undefined } as unknown as APIRole)).toBe('#abcdef');
  });
});

describe('routes', () => {
  it('parses the app\'s paths and writes them back', () => {
    const cases: [string, ReturnType<typeof parseRoute>][] = [
      ['/app', { name: 'home' }],
      ['/app/', { name: 'home' }],
      ['/app/guilds/123', { name: 'guild', guildId: '123' }],
      ['/app/guilds/123/channels/456', { name: 'guild', guildId: '123', channelId: '456' }],
      ['/app/invite/AbC-12', { name: 'invite', code: 'AbC-12' }],
      ['/app/invite/../x', { name: 'notFound' }],
      ['/app/guilds/abc', { name: 'notFound' }],
      ['/app/session', { name: 'notFound' }],
    ];
    for (const [path, route] of cases) expect([path, parseRoute(path)]).toEqual([path, route]);
    for (const [path, route] of cases.slice(2, 5)) expect(routePath(route)).toBe(path);
  });
});

describe('wire numbers', () => {
  it('match discord-api-types', () => {
    expect(Op).toEqual({ Dispatch: GatewayOpcodes.Dispatch, Heartbeat: GatewayOpcodes.Heartbeat, Identify: GatewayOpcodes.Identify, Reconnect: GatewayOpcodes.Reconnect, InvalidSession: GatewayOpcodes.InvalidSession, Hello: GatewayOpcodes.Hello });
    expect(Intent).toEqual({
      Guilds: GatewayIntentBits.Guilds, GuildMembers: GatewayIntentBits.GuildMembers, GuildInvites: GatewayIntentBits.GuildInvites, GuildVoiceStates: GatewayIntentBits.GuildVoiceStates,
      GuildMessages: GatewayIntentBits.GuildMessages, GuildMessageReactions: GatewayIntentBits.GuildMessageReactions, GuildMessageTyping: GatewayIntentBits.GuildMessageTyping,
      DirectMessages: GatewayIntentBits.DirectMessages, DirectMessageReactions: GatewayIntentBits.DirectMessageReactions, DirectMessageTyping: GatewayIntentBits.DirectMessageTyping,
    });
    expect(Channel).toEqual({ GuildText: ChannelType.GuildText, GuildVoice: ChannelType.GuildVoice, GuildCategory: ChannelType.GuildCategory, GuildAnnouncement: ChannelType.GuildAnnouncement, GuildStageVoice: ChannelType.GuildStageVoice });
  });
});

describe('Reloads (a burst of Gateway events and the reloads they start)', () => {
  /** A load whose answer is the counter's value when it started, finished by hand. */
  function harness() {
    let counter = 0;
    const pending: Array<() => void> = [];
    const applied: number[] = [];
    const load = () =>
      new Promise<void>((resolve) => {
        const seen = counter;
        pending.push(() => {
          applied.push(seen);
          resolve();
        });
      });
    return { bump: () => counter++, pending, applied, load };
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it('folds events during a reload into one more reload after it, so the last applied answer is read after the last event', async () => {
    const h = harness();
    const reloads = new Reloads();
    const calls = [0, 1, 2].map(() => {
      h.bump();
      return reloads.run('guild:1', h.load);
    });
    await tick();
    expect(h.pending).toHaveLength(1); // the second and third wait for the first
    h.pending.shift()!();
    await tick();
    expect(h.pending).toHaveLength(1); // one more, not two
    h.pending.shift()!();
    await Promise.all(calls);
    expect(h.applied).toEqual([1, 3]);
    // Quiet again: the next call loads at once.
    h.bump();
    const next = reloads.run('guild:1', h.load);
    await tick();
    h.pending.shift()!();
    await next;
    expect(h.applied).toEqual([1, 3, 4]);
  });

  it('keeps keys apart, and a failed reload does not wedge its key', async () => {
    const reloads = new Reloads();
    let n = 0;
    await expect(reloads.run('a', () => Promise.reject(new Error('offline')))).rejects.toThrow('offline');
    await Promise.all([reloads.run('a', async () => void n++), reloads.run('b', async () => void n++)]);
    expect(n).toBe(2);
  });

  it('serialReload wraps one view’s reload the same way', async () => {
    const h = harness();
    const load = serialReload(h.load);
    h.bump();
    const a = load();
    h.bump();
    const b = load();
    await tick();
    h.pending.shift()!();
    await tick();
    h.pending.shift()!();
    await Promise.all([a, b]);
    expect(h.applied).toEqual([1, 2]);
  });
});
