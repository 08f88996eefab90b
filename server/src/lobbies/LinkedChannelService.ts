import { randomInt } from 'node:crypto';
import type { Lobby } from '@social-layer/protocol';
import type { Clock } from '../commerce/clock.ts';
import { systemClock } from '../commerce/clock.ts';
import { registerMergeStep } from '../accounts/merge.ts';
import type { EventBus } from '../events/EventBus.ts';
import { userTopic } from '../events/EventBus.ts';
import { ApiError, Errors } from '../errors/ApiError.ts';
import { GuildView, viewChannel, viewGuild } from '../guilds/GuildAccess.ts';
import { GuildErrors } from '../guilds/guildErrors.ts';
import type { GuildEvents } from '../guilds/GuildEvents.ts';
import { guildServicesFor } from '../guilds/GuildServices.ts';
import { memberWire } from '../guilds/guildWire.ts';
import { autoModFor } from '../moderation/AutoModService.ts';
import { searchServiceFor } from '../messages/search/SearchService.ts';
import type { MemberWithRoles } from '../storage/GuildMemberRepo.ts';
import { channelPermissions, has, Permission, type Overwrite } from '../guilds/permissions.ts';
import type { Logger } from '../log/Logger.ts';
import { onChannelMessageChange, type ChannelMessageChange } from '../messages/channelMessageHooks.ts';
import { LinkedChannelIds } from './linkedChannelIds.ts';
import { messageWire } from '../messages/messageWire.ts';
import { channelMessageRepo, type ChannelMessageRepo, type ChannelMessagesTable } from '../storage/ChannelMessageRepo.ts';
import type { GuildChannelsTable, GuildInvitesTable } from '../storage/guildSchema.ts';
import { linkedChannelRepo, type LinkedChannelRepo, type LobbyChannelLinksTable } from '../storage/LinkedChannelRepo.ts';
import type { LobbiesTable, LobbyMessagesTable, UsersTable } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { messageToWire, type LobbyMessageHook, type LobbyService } from './LobbyService.ts';
import { additionalContent, decorateLobbyMessage } from './linkedMessages.ts';

// A provisional player who linked a lobby and then merged: the link (and its invites' inviter) names the full account.
registerMergeStep(async (tx, from, to) => {
  await tx.updateTable('lobby_channel_links').set({ linked_by: to }).where('linked_by', '=', from).execute();
});

/** Lobby member flag bit 0 (protocols.md 2.6). */
export const CAN_LINK_LOBBY = 1;
/** A lobby channel invite: single use, one hour (spec, Limits). */
export const LOBBY_INVITE_MAX_AGE_S = 3600;
const GUILD_TEXT = 0;
/** What linking needs in the channel (social-sdk-api.md 6.4). */
const LINK_PERMISSIONS = Permission.ManageChannels | Permission.ViewChannel | Permission.SendMessages;
const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The public `LinkedChannel` (id, name, guild_id) as the lobby object's `linked_channel`. */
export interface LinkedChannelWire {
  id: string;
  name: string;
  guild_id: string;
  type: number;
}

/** `GuildChannel` of social-sdk-api.md 6.4, snake_case on the wire (ours: the SDK's transport is not public). */
export interface SdkGuildChannelWire {
  id: string;
  name: string;
  type: number;
  position: number;
  parent_id: string | null;
  is_linkable: boolean;
  is_viewable_and_writeable_by_all_members: boolean;
  linked_lobby: { application_id: string; lobby_id: string } | null;
}

/** Errors of linking with their documented codes (server/README.md, Linked channels). */
export const LinkErrors = {
  notLinkableType: () => new ApiError(400, 50024, 'Cannot execute action on this channel type'),
  nsfw: () => new ApiError(400, 50024, 'An NSFW channel cannot be linked to a lobby'),
  alreadyLinked: () => GuildErrors.invalidForm(['channel_id'], 'LOBBY_CHANNEL_ALREADY_LINKED', 'This channel is already linked to another lobby.'),
  notLinked: () => new ApiError(404, 10003, 'Unknown Channel: this lobby has no linked channel'),
};

/**
 * Linked channels (issue 12): a lobby linked to one guild text channel, the rules of linking,
 * the lobby channel invites, and the mirror that copies messages both ways (each once, in order,
 * edits and deletes following). The mirror of a lobby message is written in the lobby message's
 * own transaction; the mirror of a channel message runs right after the channel message is
 * committed, serialized per lobby so copies keep their order.
 */
export class LinkedChannelService {
  readonly links: LinkedChannelRepo;
  private readonly channelMessages: ChannelMessageRepo;
  private readonly events: GuildEvents;
  /**
   * Channel-to-lobby mirror work per channel (one channel is linked to one lobby): one after
   * another, in the order the changes came. Not awaited by the message request (P1).
   */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly linkedIds: LinkedChannelIds;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly lobbies: LobbyService,
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.links = linkedChannelRepo(store.database.db);
    this.channelMessages = channelMessageRepo(store.database.db, store.ids);
    this.events = guildServicesFor(store, bus).events;
    this.linkedIds = new LinkedChannelIds(store.database.db, bus);
    this.unsubscribe.push(lobbies.onMessage(this.lobbyMessageHook));
    this.unsubscribe.push(onChannelMessageChange(store, (change) => this.onChannelChange(change)));
  }

  close(): void {
    for (const u of this.unsubscribe) u();
    this.linkedIds.close();
  }

  /** Waits for queued channel-to-lobby mirror work (shutdown, tests); failures are logged, not thrown. */
  async drain(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  // ---- linking -------------------------------------------------------------------------------

  /**
   * `PATCH /lobbies/{id}/channel-linking`: link to `channelId`, or unlink when it is null. Both
   * need a lobby member with CanLinkLobby; linking also needs a linkable channel (guild text, not
   * NSFW, not linked to another lobby) where the user has MANAGE_CHANNELS, VIEW_CHANNEL and
   * SEND_MESSAGES. Unlinking needs no guild permission. Every check runs before the write.
   */
  async setLink(applicationId: string, lobbyId: string, userId: string, channelId: string | null): Promise<Lobby> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    const member = await this.store.lobbies.member(lobbyId, userId);
    if (!member) throw Errors.missingAccess();
    if ((member.flags & CAN_LINK_LOBBY) === 0) throw GuildErrors.missingPermissions();
    const current = await this.links.ofLobby(lobbyId);
    if (channelId === null) {
      if (current) await this.links.unlink(this.store.database.db, lobbyId);
      if (current) this.linkedIds.invalidate(true);
    } else {
      const { channel } = await this.linkableChannel(userId, channelId, lobbyId);
      if (current?.channel_id !== channel.id) {
        const row: LobbyChannelLinksTable = {
          lobby_id: lobbyId,
          channel_id: channel.id,
          guild_id: channel.guild_id,
          application_id: applicationId,
          linked_by: userId,
          created_at: this.clock.now(),
        };
        try {
          await this.links.transaction(async (tx) => {
            if (current) await this.links.unlink(tx, lobbyId);
            await this.links.link(tx, row);
          });
          this.linkedIds.invalidate(true);
        } catch (err) {
          // Two lobbies racing for one channel: the unique index lets one win.
          if (await this.links.ofChannel(channel.id)) throw LinkErrors.alreadyLinked();
          throw err;
        }
      }
    }
    const view = await this.lobbies.get(applicationId, lobbyId, null);
    if ((current?.channel_id ?? null) !== (channelId ?? null)) {
      await this.lobbies.announceLobbyUpdate(applicationId, lobbyId);
      // A linked lobby does not time out (social-sdk-api.md 6.3); unlinked, the idle clock resumes.
      await this.lobbies.refreshIdleOf(lobbyId);
    }
    return view;
  }

  /** 10003 unknown, 50001 not a member / hidden, 50024 not text or NSFW, 50013 permissions, 50035 linked elsewhere. */
  private async linkableChannel(userId: string, channelId: string, lobbyId: string): Promise<{ view: GuildView; channel: GuildChannelsTable }> {
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    if (channel.type !== GUILD_TEXT) throw LinkErrors.notLinkableType();
    if (channel.nsfw === 1) throw LinkErrors.nsfw();
    view.requireIn(channel, LINK_PERMISSIONS);
    const other = await this.links.ofChannel(channel.id);
    if (other && other.lobby_id !== lobbyId) throw LinkErrors.alreadyLinked();
    return { view, channel };
  }

  /** The lobby object's `linked_channel`, or undefined (also when the channel was deleted since). */
  async linkedChannel(lobbyId: string): Promise<LinkedChannelWire | undefined> {
    const link = await this.links.ofLobby(lobbyId);
    if (!link) return undefined;
    const channel = await this.store.guilds.channel(link.channel_id);
    return channel ? { id: channel.id, name: channel.name, guild_id: channel.guild_id, type: channel.type } : undefined;
  }

  // ---- the SDK's guild surface ---------------------------------------------------------------

  /** GetUserGuilds: `GuildMinimal` (id, name) of every guild the user is in. */
  async userGuilds(userId: string): Promise<{ id: string; name: string }[]> {
    const guilds = await this.store.guilds.ofUser(userId, { limit: 200 });
    return guilds.map((g) => ({ id: g.id, name: g.name }));
  }

  /**
   * GetGuildChannels: the channels the user can view, in `position` order as the web app shows
   * them, with whether each is linkable by this user and whether @everyone can view and write it
   * (a private channel linked becomes readable and writable by every lobby member).
   */
  async guildChannels(userId: string, guildId: string): Promise<SdkGuildChannelWire[]> {
    const view = await viewGuild(this.store, guildId, userId);
    const channels = (await this.store.guilds.channels(guildId)).filter((c) => has(view.channelPermissions(c), Permission.ViewChannel));
    const links = new Map((await this.links.ofChannels(channels.map((c) => c.id))).map((l) => [l.channel_id, l]));
    const everyone = everyoneSubject(view);
    return channels.map((c) => {
      const link = links.get(c.id);
      const overwrites = JSON.parse(c.permission_overwrites) as Overwrite[];
      return {
        id: c.id,
        name: c.name,
        type: c.type,
        position: c.position,
        parent_id: c.parent_id,
        is_linkable: c.type === GUILD_TEXT && c.nsfw !== 1 && !link && has(view.channelPermissions(c), LINK_PERMISSIONS),
        is_viewable_and_writeable_by_all_members: has(channelPermissions(everyone, overwrites), Permission.ViewChannel | Permission.SendMessages),
        linked_lobby: link ? { application_id: link.application_id, lobby_id: link.lobby_id } : null,
      };
    });
  }

  // ---- lobby channel invites -----------------------------------------------------------------

  /**
   * Create Lobby Channel Invite (for self, or for a member with the bot token): a guild invite to
   * the linked channel, single use, valid one hour from `clock`, limited to that user (a target-
   * user invite), so it works once and only for them.
   */
  async createInvite(applicationId: string, lobbyId: string, forUserId: string): Promise<{ code: string; expires_at: string; guild_id: string; channel_id: string }> {
    const lobby = await this.store.lobbies.get(lobbyId);
    if (!lobby || lobby.application_id !== applicationId) throw Errors.unknownLobby();
    if (!(await this.store.users.get(forUserId))) throw Errors.unknownUser();
    if (!(await this.store.lobbies.member(lobbyId, forUserId))) throw Errors.missingAccess();
    const link = await this.links.ofLobby(lobbyId);
    const channel = link ? await this.store.guilds.channel(link.channel_id) : undefined;
    if (!link || !channel) throw LinkErrors.notLinked();
    if (await this.store.guildMembers.ban(channel.guild_id, forUserId)) throw GuildErrors.bannedFromGuild();
    const now = this.clock.now();
    const row: GuildInvitesTable = {
      code: newCode(),
      guild_id: channel.guild_id,
      channel_id: channel.id,
      inviter_id: link.linked_by,
      max_age: LOBBY_INVITE_MAX_AGE_S,
      max_uses: 1,
      uses: 0,
      temporary: 0,
      role_ids: '[]',
      has_target_users: 0,
      created_at: now,
      expires_at: now + LOBBY_INVITE_MAX_AGE_S * 1000,
    };
    await this.store.guilds.transaction((tx) => this.store.guildInvites.create(tx, row, [forUserId]));
    return { code: row.code, expires_at: new Date(now + LOBBY_INVITE_MAX_AGE_S * 1000).toISOString(), guild_id: channel.guild_id, channel_id: channel.id };
  }

  // ---- mirror: lobby -> channel --------------------------------------------------------------

  /**
   * `prepare` runs before the lobby message's transaction (the guild's checks read and write
   * outside it: AutoMod records its audit entry); `write` runs inside it, so the channel copy
   * (authored by the player, the application as its source), its search entry and the pair row
   * commit with the lobby message or not at all. A player banned from the guild, timed out there,
   * or stopped by AutoMod is not mirrored (the lobby keeps the message).
   */
  private readonly lobbyMessageHook: LobbyMessageHook = {
    prepare: async (lobby, authorId, content) => {
      const link = await this.links.ofLobby(lobby.id);
      const channel = link ? await this.store.guilds.channel(link.channel_id) : undefined;
      if (!channel) return undefined;
      return (await this.mayMirrorIntoGuild(channel, authorId, content)) ? channel : undefined;
    },
    write: async (tx, { lobby, row, wire }, prepared) => {
      const channel = prepared as GuildChannelsTable | undefined;
      if (!channel) return undefined;
      // Unlinked meanwhile: the link is read again inside the transaction.
      if ((await this.links.ofLobby(lobby.id, tx))?.channel_id !== channel.id) return undefined;
      const created = await this.channelMessages.insert(tx, {
        channel_id: channel.id,
        guild_id: channel.guild_id,
        author_id: row.author_id,
        application_id: lobby.application_id,
        type: 0,
        content: row.content,
        flags: 0,
        tts: 0,
        nonce: null,
        mention_everyone: 0,
        message_reference: null,
        message_snapshots: null,
        interaction_metadata: null,
      });
      await searchServiceFor(this.store).indexed(tx, created);
      await this.links.addMirror(tx, { lobby_message_id: row.id, channel_message_id: created.id, lobby_id: lobby.id, channel_id: channel.id, guild_id: channel.guild_id, origin: 'lobby', edited_at: null });
      wire.linked_message = { id: created.id, channel_id: channel.id, guild_id: channel.guild_id, origin: 'lobby' };
      return async () => {
        const users = await this.store.users.getMany([created.author_id]);
        const message = messageWire(created, { users });
        const member = await this.store.guildMembers.get(channel.guild_id, created.author_id);
        const { user: _u, ...memberRest } = member ? (memberWire(member) as { user?: unknown }) : { user: undefined };
        await this.events.publish(channel.guild_id, 'MESSAGE_CREATE', { ...message, guild_id: channel.guild_id, ...(member ? { member: memberRest } : {}) }, { kind: 'channel', channel });
      };
    },
  };

  /** Bans, time-outs and AutoMod of the guild apply to what a player writes in the lobby. */
  private async mayMirrorIntoGuild(channel: GuildChannelsTable, userId: string, content: string): Promise<boolean> {
    if (await this.store.guildMembers.ban(channel.guild_id, userId)) return false;
    const member = await this.store.guildMembers.get(channel.guild_id, userId);
    const until = member?.member.communication_disabled_until;
    if (until !== null && until !== undefined && Number(until) > Date.now()) return false;
    const guild = await this.store.guilds.get(channel.guild_id);
    if (!guild) return false;
    // A lobby member need not be in the guild: AutoMod sees them as a member without roles.
    const author = member ?? ({ member: { guild_id: guild.id, user_id: userId, communication_disabled_until: null }, roles: [] } as unknown as MemberWithRoles);
    try {
      await autoModFor(this.store).check(new GuildView(guild, await this.store.guilds.roles(guild.id), author), channel, content);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.code === 200000) return false;
      throw err;
    }
  }

  // ---- mirror: channel -> lobby --------------------------------------------------------------

  /**
   * Told by MessageService after a channel message change is committed. Returns at once: the
   * request does not wait for the lobby copy (security review P1), and a message in a channel
   * the in-memory set knows is unlinked costs nothing more. `drain()` waits for the copies.
   */
  private onChannelChange(change: ChannelMessageChange): Promise<void> {
    const channelId = change.kind === 'delete' ? change.channelId : change.row.channel_id;
    if (this.linkedIds.known(channelId) === false && !this.queues.has(channelId)) return Promise.resolve();
    const prev = this.queues.get(channelId) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        if (!(await this.linkedIds.has(channelId))) return;
        const link = await this.links.ofChannel(channelId);
        if (link) await this.mirrorChange(link, change);
      })
      .catch((err) => this.log.error({ err, channelId }, 'linked channel mirror failed'));
    this.queues.set(channelId, next);
    void next.finally(() => {
      if (this.queues.get(channelId) === next) this.queues.delete(channelId);
    });
    return Promise.resolve();
  }

  private async mirrorChange(link: LobbyChannelLinksTable, change: ChannelMessageChange): Promise<void> {
    const lobby = await this.store.lobbies.get(link.lobby_id);
    if (!lobby) return;
    if (change.kind === 'create') return this.mirrorCreate(lobby, link, change.row);
    if (change.kind === 'update') return this.mirrorUpdate(lobby, change.row);
    for (const id of change.ids) await this.mirrorDelete(lobby, id);
  }

  private async mirrorCreate(lobby: LobbiesTable, link: LobbyChannelLinksTable, m: ChannelMessagesTable): Promise<void> {
    // A copy made from the lobby is not copied back; a message is mirrored once.
    if (await this.links.mirrorOfChannelMessage(m.id)) return;
    const author = await this.store.users.get(m.author_id);
    if (!author || isBanned(author)) return;
    const extra = additionalContent(m);
    if (m.content === '' && !extra) return;
    const wire = await this.store.lobbies.transaction(async (tx) => {
      if (await this.links.mirrorOfChannelMessage(m.id, tx)) return undefined;
      const row = await this.store.messages.insertLobbyMessage(tx, {
        lobbyId: lobby.id,
        applicationId: lobby.application_id,
        authorId: m.author_id,
        content: m.content,
        metadata: null,
        additionalName: null,
        flags: 0,
      });
      await this.links.addMirror(tx, { lobby_message_id: row.id, channel_message_id: m.id, lobby_id: lobby.id, channel_id: link.channel_id, guild_id: link.guild_id, origin: 'channel', edited_at: null });
      const wire = decorateLobbyMessage(messageToWire(row, author), { lobby_message_id: row.id, channel_message_id: m.id, channel_id: link.channel_id, guild_id: link.guild_id, origin: 'channel', edited_at: null, lobby_id: lobby.id }, extra);
      await this.store.webhookEvents.record(tx, lobby.application_id, 'LOBBY_MESSAGE_CREATE', wire);
      return wire;
    });
    if (wire) await this.publishToMembers(lobby, 'LOBBY_MESSAGE_CREATE', wire);
  }

  private async mirrorUpdate(lobby: LobbiesTable, m: ChannelMessagesTable): Promise<void> {
    const pair = await this.links.mirrorOfChannelMessage(m.id);
    if (!pair || pair.lobby_id !== lobby.id) return;
    const row = await this.links.lobbyMessage(pair.lobby_message_id);
    const author = row ? await this.store.users.get(row.author_id) : undefined;
    if (!row || !author) return;
    const now = Date.now();
    const updated: LobbyMessagesTable = { ...row, content: m.content };
    const wire = decorateLobbyMessage(messageToWire(updated, author), { ...pair, edited_at: now }, additionalContent(m));
    await this.store.lobbies.transaction(async (tx) => {
      await this.links.setLobbyMessageContent(tx, row.id, m.content);
      await this.links.markEdited(tx, row.id, now);
      await this.store.webhookEvents.record(tx, lobby.application_id, 'LOBBY_MESSAGE_UPDATE', wire);
    });
    await this.publishToMembers(lobby, 'LOBBY_MESSAGE_UPDATE', wire);
  }

  private async mirrorDelete(lobby: LobbiesTable, channelMessageId: string): Promise<void> {
    const pair = await this.links.mirrorOfChannelMessage(channelMessageId);
    if (!pair || pair.lobby_id !== lobby.id) return;
    const data = { id: pair.lobby_message_id, lobby_id: lobby.id, channel_id: lobby.id };
    await this.store.lobbies.transaction(async (tx) => {
      await this.links.deleteLobbyMessage(tx, pair.lobby_message_id);
      await this.links.dropMirror(tx, pair.lobby_message_id);
      await this.store.webhookEvents.record(tx, lobby.application_id, 'LOBBY_MESSAGE_DELETE', { id: data.id, lobby_id: data.lobby_id });
    });
    await this.publishToMembers(lobby, 'LOBBY_MESSAGE_DELETE', data);
  }

  private async publishToMembers(lobby: LobbiesTable, t: string, d: unknown): Promise<void> {
    const members = await this.store.lobbies.memberIds(lobby.id);
    const dispatch = { t, json: JSON.stringify(d) };
    this.bus.publishMany(members.map((id) => userTopic(lobby.application_id, id)), dispatch);
  }
}

function isBanned(u: UsersTable): boolean {
  const until = (u as { banned_until?: number | string | null }).banned_until;
  return until !== null && until !== undefined && Number(until) > Date.now();
}

/** The @everyone role alone, for "viewable and writable by all members". */
function everyoneSubject(view: GuildView) {
  const everyone = view.roles.find((r) => r.id === view.guild.id);
  return {
    guildId: view.guild.id,
    ownerId: view.guild.owner_id,
    userId: '0',
    everyone: everyone ? BigInt(everyone.permissions) : 0n,
    roles: [],
    timedOutUntil: null,
  };
}

function newCode(): string {
  let s = '';
  for (let i = 0; i < 10; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return s;
}

