import { ChannelType, ErrorType, type Lobby } from '@social-layer/protocol';
import { ChannelHandle } from '../ChannelHandle.ts';
import { ClientResultError } from '../ClientResultError.ts';
import type { ClientState } from '../ClientState.ts';
import type { HttpApi } from '../HttpApi.ts';
import type { Logger } from '../Logger.ts';
import type { PageOpener } from '../auth/authorizeFlow.ts';
import { checkSnowflake } from '../validation.ts';
import type { GuildChannel, GuildMinimal } from './linkedChannelTypes.ts';

/** `ProvisionalUserMergeRequiredCallback`: the game merges the guest account, then calls provisionalUserMergeCompleted. */
export type ProvisionalUserMergeRequiredCallback = () => void;

export interface LinkedChannelsHost {
  http: HttpApi;
  state: ClientState;
  logger: Logger;
  /** The web app's origin (the Client's webBase): invites and messages open there. */
  webBase(): string;
  /** setAccountPageOpener's opener, else a popup in browsers, else none (Node: the URL is returned only). */
  opener(): PageOpener | undefined;
  requireSession(operation: string): void;
  isProvisional(): boolean;
  /** Applies a lobby object from a REST answer (the LOBBY_UPDATE dispatch may come later). */
  applyLobby(lobby: Lobby): void;
}

interface SdkGuildChannelWire {
  id: string;
  name: string;
  type: number;
  position: number;
  parent_id: string | null;
  is_linkable: boolean;
  is_viewable_and_writeable_by_all_members: boolean;
  linked_lobby: { application_id: string; lobby_id: string } | null;
}

/**
 * Linked channels and the SDK's guild surface (social-sdk-api.md 6.4, 5.3): the guilds and
 * channels a player may link, linking and unlinking, lobby channel invites through
 * joinLinkedLobbyGuild, opening a mirrored message in the web app, and the provisional-merge
 * hand-off those two need (ProvisionalUserMergeRequiredCallback, provisionalUserMergeCompleted).
 */
export class LinkedChannels {
  private mergeWaiters: Array<(success: boolean) => void> = [];
  private showingChat = false;

  constructor(private readonly host: LinkedChannelsHost) {}

  async getUserGuilds(): Promise<GuildMinimal[]> {
    this.host.requireSession('getUserGuilds');
    const guilds = await this.host.http.request<{ id: string; name: string }[]>({ method: 'GET', path: '/users/@me/sdk/guilds', auth: true });
    return guilds.map((g) => ({ id: g.id, name: g.name }));
  }

  /** The guild's channels the user can view, sorted by position (categories included, as the web app lists them). */
  async getGuildChannels(guildId: string): Promise<GuildChannel[]> {
    checkSnowflake(guildId, 'guildId');
    this.host.requireSession('getGuildChannels');
    const channels = await this.host.http.request<SdkGuildChannelWire[]>({ method: 'GET', path: `/users/@me/sdk/guilds/${guildId}/channels`, auth: true });
    return channels
      .map((c) => ({
        id: c.id,
        name: c.name,
        type: c.type,
        position: c.position,
        parentId: c.parent_id ?? undefined,
        isLinkable: c.is_linkable,
        isViewableAndWriteableByAllMembers: c.is_viewable_and_writeable_by_all_members,
        linkedLobby: c.linked_lobby ? { applicationId: c.linked_lobby.application_id, lobbyId: c.linked_lobby.lobby_id } : undefined,
      }))
      .sort((a, b) => a.position - b.position);
  }

  async linkChannelToLobby(lobbyId: string, channelId: string): Promise<void> {
    checkSnowflake(lobbyId, 'lobbyId');
    checkSnowflake(channelId, 'channelId');
    this.host.requireSession('linkChannelToLobby');
    const lobby = await this.host.http.request<Lobby>({ method: 'PATCH', path: `/lobbies/${lobbyId}/channel-linking`, body: { channel_id: channelId }, auth: true });
    this.host.applyLobby(lobby);
  }

  async unlinkChannelFromLobby(lobbyId: string): Promise<void> {
    checkSnowflake(lobbyId, 'lobbyId');
    this.host.requireSession('unlinkChannelFromLobby');
    const lobby = await this.host.http.request<Lobby>({ method: 'PATCH', path: `/lobbies/${lobbyId}/channel-linking`, body: {}, auth: true });
    this.host.applyLobby(lobby);
  }

  /**
   * Resolves with the invite URL (our web app's `/app/invite/CODE`), after opening it where a page
   * opener exists. A provisional user is asked to merge first: `mergeRequired` runs, and the call
   * waits for provisionalUserMergeCompleted (false rejects with Aborted).
   */
  async joinLinkedLobbyGuild(lobbyId: string, mergeRequired: ProvisionalUserMergeRequiredCallback | null): Promise<string> {
    checkSnowflake(lobbyId, 'lobbyId');
    this.host.requireSession('joinLinkedLobbyGuild');
    await this.ensureFullAccount('joinLinkedLobbyGuild', mergeRequired);
    const invite = await this.host.http.request<{ code: string }>({ method: 'POST', path: `/lobbies/${lobbyId}/members/@me/invites`, auth: true });
    const url = `${this.host.webBase()}/app/invite/${invite.code}`;
    await this.open(url);
    return url;
  }

  /** The game finished (or gave up) the merge a ProvisionalUserMergeRequiredCallback asked for. */
  provisionalUserMergeCompleted(success: boolean): void {
    const waiters = this.mergeWaiters;
    this.mergeWaiters = [];
    for (const w of waiters) w(success);
  }

  /** True for a lobby message that has a copy in a linked guild channel (persisted outside the game). */
  canOpenMessageInDiscord(messageId: string): boolean {
    return !this.host.state.destroyed && this.host.state.messages.get(messageId)?.linked !== undefined;
  }

  /** Opens the message's copy in the web app (`/app/guilds/G/channels/C?message=M`); provisional users merge first. */
  async openMessageInDiscord(messageId: string, mergeRequired: ProvisionalUserMergeRequiredCallback | null): Promise<void> {
    checkSnowflake(messageId, 'messageId');
    const linked = this.host.state.messages.get(messageId)?.linked;
    if (!linked) throw ClientResultError.validation(`message ${messageId} is not in a linked channel (canOpenMessageInDiscord is false)`);
    await this.ensureFullAccount('openMessageInDiscord', mergeRequired);
    await this.open(`${this.host.webBase()}/app/guilds/${linked.guild_id}/channels/${linked.channel_id}?message=${linked.id}`);
  }

  /**
   * Whether the game shows its chat now. The native SDK tells the desktop app, which then holds
   * back its own notifications; ours has none to hold back, so it is kept for isShowingChat().
   */
  setShowingChat(showing: boolean): void {
    this.showingChat = showing;
    this.host.logger.verbose(`chat ${showing ? 'shown' : 'hidden'} in game`);
  }

  isShowingChat(): boolean {
    return this.showingChat;
  }

  /** A lobby, DM or ephemeral DM the client knows of. */
  getChannelHandle(channelId: string): ChannelHandle | undefined {
    const state = this.host.state;
    if (state.destroyed) return undefined;
    if (state.lobbyState(channelId)) return new ChannelHandle(state, channelId, ChannelType.Lobby);
    // A DM: a cached message in that channel names the other user; ephemeral DMs use the other user's ID.
    const dm = state.messages.newestIn(channelId);
    if (!dm || dm.lobbyId !== '0') return undefined;
    const other = dm.authorId === state.selfId ? (dm.recipientId ?? '0') : dm.authorId;
    return new ChannelHandle(state, channelId, channelId === other ? ChannelType.EphemeralDm : ChannelType.Dm, other);
  }

  private async ensureFullAccount(operation: string, mergeRequired: ProvisionalUserMergeRequiredCallback | null): Promise<void> {
    if (!this.host.isProvisional()) return;
    if (!mergeRequired) throw ClientResultError.validation(`${operation} needs a full account: pass a provisional-user-merge-required callback`);
    const done = new Promise<boolean>((resolve) => this.mergeWaiters.push(resolve));
    queueMicrotask(() => mergeRequired());
    if (!(await done)) throw new ClientResultError({ type: ErrorType.Aborted, error: `${operation}: the account merge did not complete` });
  }

  private async open(url: string): Promise<void> {
    const opener = this.host.opener();
    if (!opener) return;
    try {
      await opener(url);
    } catch (error) {
      this.host.logger.warn(`could not open ${url}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
