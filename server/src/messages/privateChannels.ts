import type { APIUser } from 'discord-api-types/v10';
import type { EventBus } from '../events/EventBus.ts';
import { GuildView } from '../guilds/GuildAccess.ts';
import { guildUserTopic, type Audience, type GuildEvents } from '../guilds/GuildEvents.ts';
import { userWire } from '../guilds/guildWire.ts';
import { Permission } from '../guilds/permissions.ts';
import { ApiError } from '../errors/ApiError.ts';
import type { GuildChannelsTable } from '../storage/guildSchema.ts';
import { PrivateChannelRepo, type PrivateChannel } from '../storage/PrivateChannelRepo.ts';
import { snowflakeLess } from '../storage/DirectMessageRepo.ts';
import type { Store } from '../storage/Store.ts';
import { MessageErrors as E } from './messageErrors.ts';

/** Channel types of full accounts' private channels (public values). */
export const ChannelType = { Dm: 1, GroupDm: 3 } as const;

/** Who calls, as far as private channels care: a bot, or a Bearer token of an application. */
export interface PrivateCaller {
  bot: boolean;
  applicationId: string;
}

/** A group DM holds 10 users at most, its creator included (public limit). */
export const GROUP_DM_MAX_USERS = 10;

/**
 * What a participant may do in a DM or group DM: read, write, attach, embed, react and pin (the
 * public client lets anyone in a DM pin). Nobody manages others' messages and there is no
 * @everyone; slowmode does not exist there.
 */
const PARTICIPANT = [
  Permission.ViewChannel, Permission.SendMessages, Permission.ReadMessageHistory, Permission.AttachFiles,
  Permission.EmbedLinks, Permission.AddReactions, Permission.UseExternalEmojis, Permission.PinMessages,
].reduce((a, b) => a | b, 0n);

/** Gateway intents of DM events (public values): DIRECT_MESSAGES, DIRECT_MESSAGE_REACTIONS, DIRECT_MESSAGE_TYPING. */
export const DmIntent = { DirectMessages: 1 << 12, DirectMessageReactions: 1 << 13, DirectMessageTyping: 1 << 14, DirectMessagePolls: 1 << 25 } as const;

/** Which intent each DM dispatch (qualifier `|dm` on the user's guild topic) needs; GuildGateway reads it. */
export const DM_INTENT_OF: Record<string, number> = {
  CHANNEL_CREATE: DmIntent.DirectMessages,
  CHANNEL_UPDATE: DmIntent.DirectMessages,
  CHANNEL_DELETE: DmIntent.DirectMessages,
  CHANNEL_RECIPIENT_ADD: DmIntent.DirectMessages,
  CHANNEL_RECIPIENT_REMOVE: DmIntent.DirectMessages,
  MESSAGE_CREATE: DmIntent.DirectMessages,
  MESSAGE_UPDATE: DmIntent.DirectMessages,
  MESSAGE_DELETE: DmIntent.DirectMessages,
  MESSAGE_DELETE_BULK: DmIntent.DirectMessages,
  CHANNEL_PINS_UPDATE: DmIntent.DirectMessages,
  MESSAGE_REACTION_ADD: DmIntent.DirectMessageReactions,
  MESSAGE_REACTION_REMOVE: DmIntent.DirectMessageReactions,
  MESSAGE_REACTION_REMOVE_ALL: DmIntent.DirectMessageReactions,
  MESSAGE_REACTION_REMOVE_EMOJI: DmIntent.DirectMessageReactions,
  TYPING_START: DmIntent.DirectMessageTyping,
  MESSAGE_POLL_VOTE_ADD: DmIntent.DirectMessagePolls,
  MESSAGE_POLL_VOTE_REMOVE: DmIntent.DirectMessagePolls,
};

/**
 * DMs and group DMs of full accounts (issue 11): opening and creating them, their public Channel
 * objects, and what MessageService needs to run its guild-channel code in them unchanged: a
 * stand-in channel row (`guild_id` null, no overwrites, no slowmode), a stand-in GuildView with
 * the participant permissions, and an event publisher that sends to the participants' sessions
 * with the `|dm` qualifier (DM intents; no MESSAGE_CONTENT rule, as publicly specified).
 */
export class PrivateChannels {
  readonly repo: PrivateChannelRepo;
  /** Stand-in channel rows and views back to their private channel. */
  private readonly byRow = new WeakMap<object, PrivateChannel>();

  constructor(private readonly store: Store, private readonly bus: EventBus) {
    this.repo = new PrivateChannelRepo(store.database.db, store.ids);
  }

  /** The public Channel object as `viewerId` sees it: `recipients` are the others. */
  async wire(ch: PrivateChannel, viewerId: string): Promise<Record<string, unknown>> {
    const users = await this.store.users.getMany(ch.userIds);
    const recipients = ch.userIds.filter((id) => id !== viewerId).map((id) => users.get(id)).filter((u) => u !== undefined).map((u) => userWire(u) as APIUser);
    const last = await this.store.database.db.selectFrom('channel_messages').select('id').where('channel_id', '=', ch.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    const base = { id: ch.id, type: ch.type, last_message_id: last?.id ?? null, flags: 0, recipients };
    if (ch.type === ChannelType.Dm) return base;
    return { ...base, name: ch.name, icon: null, owner_id: ch.ownerId, ...(ch.applicationId ? { application_id: ch.applicationId, managed: true } : {}), ...(Object.keys(ch.nicks).length > 0 ? { nicks: Object.entries(ch.nicks).map(([id, nick]) => ({ id, nick })) } : {}) };
  }

  /** Create DM: the pair's channel (10013 for an unknown user). Sending is checked per message. */
  async openDm(callerId: string, recipientId: string): Promise<Record<string, unknown>> {
    const other = /^\d{1,20}$/.test(recipientId) ? await this.store.users.get(recipientId) : undefined;
    if (!other || recipientId === callerId) throw new ApiError(404, 10013, 'Unknown User');
    const existing = await this.store.directMessages.channelBetween(callerId, recipientId);
    const ch = await this.repo.openDm(callerId, recipientId);
    if (!existing) this.toUsers([callerId], 'CHANNEL_CREATE', await this.wire(ch, callerId));
    return this.wire(ch, callerId);
  }

  /**
   * Create Group DM. A user lists `recipients` (user IDs of friends, the client's form); an
   * application passes `access_tokens` of users who granted it `gdm.join` (the public form) and
   * is a participant itself. 10 users at most; CHANNEL_CREATE goes to everyone in it.
   */
  async createGroup(caller: { userId: string; bot: boolean; applicationId: string }, body: { recipients?: string[]; access_tokens?: string[]; nicks?: Record<string, string>; name?: string | null }): Promise<Record<string, unknown>> {
    const others: string[] = [];
    if (body.access_tokens !== undefined) {
      for (const [i, token] of body.access_tokens.entries()) {
        const grant = await this.store.tokens.resolve(token);
        if (!grant || grant.applicationId !== caller.applicationId || !grant.scopes.includes('gdm.join')) throw E.invalidForm(['access_tokens', String(i)], 'ACCESS_TOKEN_INVALID', 'The access token is invalid, expired, of another application or lacks gdm.join.');
        others.push(grant.userId);
      }
    } else {
      if (caller.bot) throw E.invalidForm(['access_tokens'], 'BASE_TYPE_REQUIRED', 'This field is required');
      for (const [i, id] of (body.recipients ?? []).entries()) {
        const u = /^\d{1,20}$/.test(id) ? await this.store.users.get(id) : undefined;
        if (!u) throw E.invalidForm(['recipients', String(i)], 'USER_UNKNOWN', 'Unknown user');
        // Only friends may be put in a group DM (the public client's rule), never someone who blocks either way.
        if (!(await this.store.relationships.areFriends(caller.userId, id, '0')) || (await this.store.relationships.blockedEitherWay(caller.userId, id))) {
          throw new ApiError(403, 50007, 'Cannot send messages to this user');
        }
        others.push(id);
      }
    }
    const userIds = [...new Set([caller.userId, ...others])];
    if (userIds.length > GROUP_DM_MAX_USERS) throw new ApiError(400, 30010, `Maximum number of group DM recipients reached (${GROUP_DM_MAX_USERS})`);
    const nicks = Object.fromEntries(Object.entries(body.nicks ?? {}).filter(([id, n]) => userIds.includes(id) && typeof n === 'string' && n.length > 0 && n.length <= 32));
    const ch = await this.repo.createGroup(caller.userId, userIds, { applicationId: caller.bot ? caller.applicationId : null, nicks, name: body.name ?? null });
    for (const id of userIds) this.toUsers([id], 'CHANNEL_CREATE', await this.wire(ch, id));
    return this.wire(ch, caller.userId);
  }

  /** A private channel the caller is in, or 50001; undefined when `channelId` is no private channel. */
  private async mine(callerId: string, channelId: string, who?: PrivateCaller): Promise<PrivateChannel | undefined> {
    const ch = await this.repo.get(channelId);
    if (ch && !ch.userIds.includes(callerId)) throw E.missingAccess();
    if (ch && who && !(await this.mayUse(who))) throw E.missingAccess();
    return ch;
  }

  /** Get Channel for a DM or group DM; undefined when it is not one (the guild route answers). */
  async getChannel(callerId: string, channelId: string, who: PrivateCaller): Promise<Record<string, unknown> | undefined> {
    const ch = await this.mine(callerId, channelId, who);
    return ch ? this.wire(ch, callerId) : undefined;
  }

  /** Modify Channel of a group DM: `name` (any participant, as publicly). A DM has nothing to modify (50035). */
  async modifyChannel(callerId: string, channelId: string, who: PrivateCaller, body: { name?: string | null }): Promise<Record<string, unknown> | undefined> {
    const ch = await this.mine(callerId, channelId, who);
    if (!ch) return undefined;
    if (ch.type === ChannelType.Dm) throw E.invalidForm(['name'], 'CHANNEL_TYPE_INVALID', 'A DM has no name to change.');
    if (body.name !== undefined) await this.repo.rename(ch.id, body.name);
    const updated = (await this.repo.get(ch.id))!;
    for (const id of updated.userIds) this.toUsers([id], 'CHANNEL_UPDATE', await this.wire(updated, id));
    return this.wire(updated, callerId);
  }

  /**
   * Delete/Close Channel: closing a DM only answers it (the pair keeps its channel and history;
   * the client hides it); leaving a group DM takes the caller out (CHANNEL_DELETE to them,
   * CHANNEL_RECIPIENT_REMOVE to the rest; the next member becomes owner when the owner leaves).
   */
  async closeChannel(callerId: string, channelId: string, who: PrivateCaller): Promise<Record<string, unknown> | undefined> {
    const ch = await this.mine(callerId, channelId, who);
    if (!ch) return undefined;
    const wire = await this.wire(ch, callerId);
    if (ch.type === ChannelType.GroupDm) await this.leave(ch, callerId);
    return wire;
  }

  private async leave(ch: PrivateChannel, userId: string): Promise<void> {
    // Removal, owner handoff and the empty group's end in one transaction; events from what changed.
    const { removed, rest } = await this.repo.removeRecipient(ch.id, userId);
    if (!removed) return;
    const user = await this.store.users.get(userId);
    this.toUsers([userId], 'CHANNEL_DELETE', { id: ch.id, type: ch.type });
    if (user) this.toUsers(rest, 'CHANNEL_RECIPIENT_REMOVE', { channel_id: ch.id, user: userWire(user) });
  }

  /**
   * Group DM Add Recipient: an application with the user's `gdm.join` access token (public form),
   * or a participant adding a friend of theirs (the client's form). 10 users at most (30010).
   */
  async addRecipient(caller: { userId: string; bot: boolean; applicationId: string }, channelId: string, userId: string, body: { access_token?: string; nick?: string }): Promise<void> {
    // With the user's gdm.join token any application of that token may add; the friends form is the web app's (or a bot's, refused below).
    const ch = await this.mine(caller.userId, channelId, body.access_token === undefined ? caller : undefined);
    if (!ch) throw E.unknownChannel();
    if (ch.type !== ChannelType.GroupDm) throw E.invalidForm(['channel_id'], 'CHANNEL_TYPE_INVALID', 'Recipients can only be added to a group DM.');
    const user = /^\d{1,20}$/.test(userId) ? await this.store.users.get(userId) : undefined;
    if (!user) throw new ApiError(404, 10013, 'Unknown User');
    if (body.access_token !== undefined) {
      const grant = await this.store.tokens.resolve(body.access_token);
      if (!grant || grant.userId !== userId || grant.applicationId !== caller.applicationId || !grant.scopes.includes('gdm.join')) throw E.invalidForm(['access_token'], 'ACCESS_TOKEN_INVALID', 'The access token is invalid, of another user or application, or lacks gdm.join.');
    } else if (caller.bot || !(await this.store.relationships.areFriends(caller.userId, userId, '0')) || (await this.store.relationships.blockedEitherWay(caller.userId, userId))) {
      throw new ApiError(403, 50007, 'Cannot send messages to this user');
    }
    if (ch.userIds.includes(userId)) return;
    const added = await this.repo.addRecipient(ch.id, userId, body.nick ?? null, GROUP_DM_MAX_USERS);
    if (added === 'full') throw new ApiError(400, 30010, `Maximum number of group DM recipients reached (${GROUP_DM_MAX_USERS})`);
    if (added === 'gone') throw E.unknownChannel();
    if (added === 'present') return;
    const updated = await this.repo.get(ch.id);
    if (!updated) return;
    this.toUsers([userId], 'CHANNEL_CREATE', await this.wire(updated, userId));
    this.toUsers(updated.userIds.filter((u) => u !== userId), 'CHANNEL_RECIPIENT_ADD', { channel_id: ch.id, user: userWire(user) });
  }

  /** Group DM Remove Recipient: the owner removes anyone; anyone removes themselves (leaving). */
  async removeRecipient(callerId: string, channelId: string, userId: string): Promise<void> {
    const ch = await this.mine(callerId, channelId);
    if (!ch) throw E.unknownChannel();
    if (ch.type !== ChannelType.GroupDm) throw E.invalidForm(['channel_id'], 'CHANNEL_TYPE_INVALID', 'Recipients can only be removed from a group DM.');
    if (userId !== callerId && ch.ownerId !== callerId) throw E.missingPermissions();
    if (!ch.userIds.includes(userId)) return;
    await this.leave(ch, userId);
  }

  /** The caller's DMs and group DMs (Get User DMs, the client's `GET /users/@me/channels`), latest activity first. */
  async list(callerId: string): Promise<Record<string, unknown>[]> {
    const wires = await Promise.all((await this.repo.ofUser(callerId)).map((ch) => this.wire(ch, callerId)));
    const last = (w: Record<string, unknown>) => (w.last_message_id as string | null) ?? (w.id as string);
    return wires.sort((a, b) => (snowflakeLess(last(a), last(b)) ? 1 : -1));
  }

  private async isFirstMessage(channelId: string): Promise<boolean> {
    const rows = await this.store.database.db.selectFrom('channel_messages').select('id').where('channel_id', '=', channelId).limit(2).execute();
    return rows.length === 1;
  }

  /**
   * MessageService's access for a private channel: undefined when `channelId` is not one; 50001
   * when the caller is not in it. A DM whose other user blocks the caller (or is blocked), or
   * with whom the caller shares no guild and no friendship, is read-only: sending answers 50007.
   */
  async access(userId: string, channelId: string, opts: { send?: boolean; caller?: PrivateCaller } = {}): Promise<{ view: GuildView; channel: GuildChannelsTable; perms: bigint } | undefined> {
    const ch = await this.repo.get(channelId);
    if (!ch) return undefined;
    if (!ch.userIds.includes(userId)) throw E.missingAccess();
    if (opts.caller && !(await this.mayUse(opts.caller))) throw E.missingAccess();
    let perms = PARTICIPANT;
    // Whether the DM takes messages costs queries: only worked out when sending (callers without
    // `send`, as before, get it worked out).
    const sending = opts.send ?? true;
    if (sending && ch.type === ChannelType.Dm && !(await this.maySendDm(userId, ch.userIds.find((u) => u !== userId) ?? userId))) perms &= ~Permission.SendMessages;
    const row: GuildChannelsTable = {
      id: ch.id, guild_id: null as unknown as string, type: ch.type, name: ch.name ?? '', position: 0, parent_id: null, topic: null, nsfw: 0, bitrate: null,
      user_limit: null, rate_limit_per_user: 0, permission_overwrites: '[]', application_id: ch.applicationId, flags: 0, status: null, voice_start_time: null, created_at: 0,
    };
    const user = (await this.store.users.get(userId))!;
    const view = new GuildView(
      // No owner: a group DM's owner gets no guild-owner powers from code that asks the view.
      { id: ch.id, name: ch.name ?? '', icon: null, banner: null, description: null, owner_id: '', features: '[]', tag: null, system_channel_id: null, created_at: 0 },
      [],
      { member: { guild_id: ch.id, user_id: userId, nick: null, avatar: null, banner: null, bio: null, flags: 0, communication_disabled_until: null, joined_at: 0 }, roles: [], user },
    );
    this.byRow.set(row, ch);
    this.byRow.set(view, ch);
    return { view, channel: row, perms };
  }

  /** The private channel behind a stand-in row or view from `access`, if it is one. */
  of(rowOrView: object): PrivateChannel | undefined {
    return this.byRow.get(rowOrView);
  }

  /** Full accounts may DM friends and people they share a guild with, never across a block; bots only people in their guilds. */
  async maySendDm(from: string, to: string): Promise<boolean> {
    if (from === to) return false;
    if (await this.store.relationships.blockedEitherWay(from, to)) return false;
    if (await this.store.relationships.areFriends(from, to, '0')) return true;
    // One indexed join for a shared guild (not both users' guild lists).
    const shared = await this.store.database.db.selectFrom('guild_members as a').innerJoin('guild_members as b', 'b.guild_id', 'a.guild_id')
      .select('a.guild_id').where('a.user_id', '=', from).where('b.user_id', '=', to).limit(1).executeTakeFirst();
    return shared !== undefined;
  }

  /**
   * Whether a token may touch DMs and group DMs at all: bots (as publicly: open a DM, send in it)
   * and the first-party web app's tokens. A third-party application's Bearer token may not,
   * whatever its scopes: the public scopes for it (`dm_channels.read`, ...) are not in our spec,
   * so none is honoured. The access_tokens forms (`gdm.join` grants) are checked on their own.
   */
  async mayUse(caller: PrivateCaller): Promise<boolean> {
    if (caller.bot) return true;
    return (await this.store.applications.get(caller.applicationId))?.first_party === 1;
  }

  private toUsers(userIds: string[], t: string, payload: unknown): void {
    const json = JSON.stringify(payload);
    this.bus.publishMany(Array.from(userIds, (id) => guildUserTopic(id)), { t: `${t}|dm`, json });
  }

  /**
   * GuildEvents.publish with private channels routed to their participants: `guild_id` and
   * `member` (guild-only fields) dropped, the `|dm` qualifier on the event name.
   */
  publisher(guild: GuildEvents): Pick<GuildEvents, 'publish'> {
    return {
      publish: async (guildId: string, t: string, payload: unknown, audience: Audience, opts?: { subjectUserId?: string; alsoTo?: string[] }) => {
        const ch = audience.kind === 'channel' ? this.of(audience.channel) : undefined;
        if (!ch) return guild.publish(guildId, t, payload, audience, opts);
        const { guild_id: _g, member: _m, ...rest } = payload as Record<string, unknown>;
        if (rest.message_reference && typeof rest.message_reference === 'object') {
          const { guild_id: _rg, ...ref } = rest.message_reference as Record<string, unknown>;
          rest.message_reference = ref;
        }
        // MESSAGE_CREATE/UPDATE name the channel's type (public field): a client that has not
        // cached the DM yet (discord.js with Partials.Channel) builds it from this.
        if (t === 'MESSAGE_CREATE' || t === 'MESSAGE_UPDATE') rest.channel_type = ch.type;
        // A DM's first message brings the channel to the other side: CHANNEL_CREATE before it
        // (the opener had theirs when opening it).
        if (t === 'MESSAGE_CREATE' && ch.type === ChannelType.Dm && (await this.isFirstMessage(ch.id))) {
          const author = (rest.author as { id?: string } | undefined)?.id;
          for (const id of ch.userIds.filter((u) => u !== author)) this.toUsers([id], 'CHANNEL_CREATE', await this.wire(ch, id));
        }
        this.toUsers(ch.userIds, t, rest);
        return ch.userIds.length;
      },
    };
  }
}

const byStore = new WeakMap<Store, PrivateChannels>();

export function privateChannelsFor(store: Store, bus: EventBus): PrivateChannels {
  let s = byStore.get(store);
  if (!s) byStore.set(store, (s = new PrivateChannels(store, bus)));
  return s;
}
