import type { EventBus } from '../events/EventBus.ts';
import type { Store } from '../storage/Store.ts';
import type { GuildChannelsTable } from '../storage/guildSchema.ts';
import { subjectsOf } from './GuildAccess.ts';
import { tapGuildEvent } from './guildEventTaps.ts';
import { channelPermissions, everyoneViews, has, Permission, type Overwrite } from './permissions.ts';
import type { AuditScope } from '../moderation/auditContext.ts';

/**
 * Guild dispatches reach each member's sessions through one topic per user (`gu:<user>`), shared
 * by every application the user is signed into. The permission filter runs here, once per member,
 * where the guild's state is at hand; the intent filter runs in each session (GuildGateway), which
 * alone knows its intents. Two qualifiers ride on the event name: `|self` marks the copy for the
 * member the event is about (GUILD_MEMBER_UPDATE of oneself ignores intents), `|hidden` marks the
 * obfuscated copy of a channel the member cannot view (only sessions that opted in keep it).
 */
export function guildUserTopic(userId: string): string {
  return `gu:${userId}`;
}

export type Audience =
  /** Every member. */
  | { kind: 'guild' }
  /** Members who can view the channel; the rest get `hidden` (obfuscated) when given. */
  | { kind: 'channel'; channel: GuildChannelsTable; hidden?: unknown }
  /** Members holding `bit`, in `channel` when given (INVITE_CREATE needs MANAGE_CHANNELS there). */
  | { kind: 'permission'; bit: bigint; channel?: GuildChannelsTable };

export class GuildEvents {
  constructor(private readonly store: Store, private readonly bus: EventBus) {}

  /**
   * Publishes `payload` as `t` to the members `audience` selects. `subjectUserId` gets the `|self`
   * copy; `alsoTo` names non-members who must hear it too (the member just removed or banned);
   * `audit` is the scope of the request that made the change (the audit tap records it).
   */
  async publish(guildId: string, t: string, payload: unknown, audience: Audience, opts: { subjectUserId?: string; alsoTo?: string[]; audit?: AuditScope | null } = {}): Promise<number> {
    const guild = await this.store.guilds.get(guildId);
    if (!guild) return 0;
    await tapGuildEvent(this.store, guildId, t, payload, opts.audit ?? null);
    const json = JSON.stringify(payload);
    const hiddenJson = audience.kind === 'channel' && audience.hidden !== undefined ? JSON.stringify(audience.hidden) : null;
    let sent = 0;
    // Recipients gathered per dispatch (the event, its |self and |hidden forms), each published to
    // all of its recipients at once: on Redis a fan-out is then one script, whole or not at all.
    const groups = new Map<string, { dispatch: { t: string; json: string }; topics: string[] }>();
    const send = (userId: string, name: string, body: string) => {
      const form = userId === opts.subjectUserId ? `${name}|self` : name;
      // The name says the body: the event's JSON, or the hidden form's for `|hidden`.
      let group = groups.get(form);
      if (!group) groups.set(form, (group = { dispatch: { t: form, json: body }, topics: [] }));
      group.topics.push(guildUserTopic(userId));
      sent++;
    };
    if (audience.kind === 'guild') {
      // Every member may see guild-wide events: no permission computation, just the member IDs.
      for (const id of await this.store.guildMembers.userIds(guildId)) send(id, t, json);
    } else {
      const roles = await this.store.guilds.roles(guildId);
      const overwrites = audience.channel ? (JSON.parse(audience.channel.permission_overwrites) as Overwrite[]) : [];
      const everyone = roles.find((r) => r.id === guildId);
      if (audience.kind === 'channel' && everyoneViews(everyone ? BigInt(everyone.permissions) : 0n, overwrites)) {
        // A channel every member can view (most are): the member IDs are the audience.
        for (const id of await this.store.guildMembers.userIds(guildId)) send(id, t, json);
      } else {
        const subject = subjectsOf(guild, roles);
        for (const m of await this.store.guildMembers.permissionRows(guildId)) {
          const perms = channelPermissions(subject(m), overwrites);
          if (audience.kind === 'channel') {
            if (has(perms, Permission.ViewChannel)) send(m.member.user_id, t, json);
            else if (hiddenJson !== null) send(m.member.user_id, `${t}|hidden`, hiddenJson);
          } else if (has(perms, audience.bit)) send(m.member.user_id, t, json);
        }
      }
    }
    for (const id of opts.alsoTo ?? []) send(id, t, json);
    for (const { dispatch, topics } of groups.values()) this.bus.publishMany(topics, dispatch);
    return sent;
  }

  /**
   * The user joined (or created) a guild: each of their sessions builds its own GUILD_CREATE,
   * since what it holds depends on the session's intents and capabilities (`|build`).
   */
  guildAvailable(userId: string, guildId: string): void {
    this.bus.publish(guildUserTopic(userId), { t: 'GUILD_CREATE|build', json: JSON.stringify({ id: guildId }) });
  }

  /** One dispatch to one user's sessions (GUILD_DELETE after they left). */
  toUser(userId: string, t: string, payload: unknown): void {
    this.bus.publish(guildUserTopic(userId), { t, json: JSON.stringify(payload) });
  }
}
