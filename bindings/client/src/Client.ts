import { LobbyEventKind, LobbyState } from '@social-layer/core-wasm';
import {
  AuthorizationTokenType,
  ClientStatus,
  DispatchEvent,
  ErrorType,
  Limits,
  snowflakeTimestamp,
  type AuthenticationExternalAuthType,
  type ClientError,
  type CreateOrJoinLobbyBody,
  type Lobby,
  type LobbyDeleteData,
  type LobbyMember,
  type LobbyMemberEventData,
  type LobbyMessage,
  type LoggingSeverity,
  type Metadata,
  type ProvisionalTokenBody,
  type ReadyData,
  type SendLobbyMessageBody,
  type TokenResponse,
  type User,
} from '@social-layer/protocol';
import type { VoiceServerUpdate, VoiceState } from '@social-layer/protocol';
import { ClientResultError } from './ClientResultError.ts';
import type { AuthorizationArgs, AuthorizationCodeVerifier, DeviceAuthorizationArgs } from './auth/AuthorizationArgs.ts';
import type { AuthorizationResult, AuthorizeOpener, PageOpener } from './auth/authorizeFlow.ts';
import { ClientAuth, type ChildTokenResult, type CurrentUserResult, type DeviceScreen } from './auth/ClientAuth.ts';
import { DEFAULT_TOKEN_EXPIRY_THRESHOLD_MS, type TokenExpirationCallback } from './auth/TokenExpiry.ts';
import { AUTHORIZE_REQUEST_EVENT } from '@social-layer/protocol';
import { ClientState } from './ClientState.ts';
import { EventHub } from './EventHub.ts';
import type { ClientEventName, ClientEvents, Unsubscribe } from './events.ts';
import { GatewaySession } from './GatewaySession.ts';
import { HttpApi } from './HttpApi.ts';
import { LobbyHandle } from './LobbyHandle.ts';
import { lobbySnapshot, memberSnapshot } from './lobbySnapshot.ts';
import { Logger, type LogCallback } from './Logger.ts';
import { MessageHandle } from './MessageHandle.ts';
import type { MessageRecord } from './MessageCache.ts';
import { defaultApiBase, type ClientOptions } from './options.ts';
import { errorToString, statusToString } from './strings.ts';
import { UserHandle } from './UserHandle.ts';
import type { RelationshipGroupType, SocialReadyData, StatusType } from '@social-layer/protocol';
import type { Activity } from './Activity.ts';
import type { ActivityInvite } from './ActivityInvite.ts';
import type { RelationshipHandle } from './RelationshipHandle.ts';
import { Social } from './social/Social.ts';
import type { AudioDevice } from './voice/audio/AudioEngine.ts';
import type { Call } from './voice/Call.ts';
import type { CallInfoHandle } from './voice/CallInfoHandle.ts';
import type { UserAudioCapturedCallback, UserAudioReceivedCallback } from './voice/MediaPipeline.ts';
import { VoiceManager } from './voice/VoiceManager.ts';
import type { UserMessageSummary } from './UserMessageSummary.ts';
import {
  checkDisplayName,
  checkExternalAuth,
  checkLobbySecret,
  checkMessageContent,
  checkMetadata,
  checkSnowflake,
} from './validation.ts';
import { resolveWebSocket } from './webSocket.ts';

/** What getProvisionalToken resolves with (the spec's TokenExchangeCallback values). */
export interface TokenExchangeResult {
  accessToken: string;
  /** Empty: provisional tokens come without a refresh token; ask for a new one instead. */
  refreshToken: string;
  tokenType: AuthorizationTokenType;
  /** Seconds. */
  expiresIn: number;
  scopes: string;
}

type LobbyEventName = 'lobbyCreated' | 'lobbyDeleted' | 'lobbyUpdated';
type MemberEventName = 'lobbyMemberAdded' | 'lobbyMemberRemoved' | 'lobbyMemberUpdated';
type PendingLobbyEvent = { event: LobbyEventName; lobbyId: string } | { event: MemberEventName; lobbyId: string; memberId: string };

const LOBBY_EVENT_NAMES: Record<number, LobbyEventName | MemberEventName> = {
  [LobbyEventKind.LobbyCreated]: 'lobbyCreated',
  [LobbyEventKind.LobbyDeleted]: 'lobbyDeleted',
  [LobbyEventKind.LobbyUpdated]: 'lobbyUpdated',
  [LobbyEventKind.MemberAdded]: 'lobbyMemberAdded',
  [LobbyEventKind.MemberRemoved]: 'lobbyMemberRemoved',
  [LobbyEventKind.MemberUpdated]: 'lobbyMemberUpdated',
};

/**
 * The Social Layer client: the spec's `sdkpp::Client` in camelCase, with Promises for the
 * callbacks and typed events. One instance per signed-in user.
 */
export class Client {
  private readonly http: HttpApi;
  private readonly auth: ClientAuth;
  private authorizeRequestCallback: (() => void) | null = null;
  private readonly logger = new Logger();
  private readonly events: EventHub<ClientEvents>;
  private readonly state = new ClientState();
  private readonly session: GatewaySession;
  private readonly callbackSlots = new Map<ClientEventName, Unsubscribe>();
  private applicationId: string | undefined;
  private gatewayUrlCache: string | undefined;
  private lobbyStateLoading: Promise<LobbyState> | undefined;
  /** Lobby events from READY, held until statusChanged(Ready) has gone out. */
  private heldLobbyEvents: PendingLobbyEvent[] | undefined;
  /** READY seen since the last Disconnected: lobby state is valid even while Reconnecting. */
  private hadReady = false;
  /**
   * Lobbies left through leaveLobby whose LOBBY_DELETE has not arrived yet. REST and Gateway
   * are separate connections, so an update sent before the leave can arrive after its response;
   * without this it would bring the lobby back until LOBBY_DELETE removed it again.
   */
  private readonly leftLobbies = new Set<string>();
  /** Relationships, presence, invites and direct messages (src/social/). */
  private readonly social: Social;
  /** Calls, voice states, audio devices and volumes (src/voice/). */
  private readonly voice: VoiceManager;

  constructor(private readonly options: ClientOptions = {}) {
    const apiBase = (options.apiBase ?? defaultApiBase()).replace(/\/+$/, '');
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.http = new HttpApi(apiBase, fetchImpl, this.logger);
    this.auth = new ClientAuth({ http: this.http, logger: this.logger, apiBase, applicationId: () => this.applicationId });
    if (options.httpTimeoutMs !== undefined) this.setHttpRequestTimeout(options.httpTimeoutMs);
    this.applicationId = options.applicationId;
    this.events = new EventHub<ClientEvents>(options.queueEvents === true, (event, error) =>
      this.logger.error(`a ${event} listener threw: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.social = new Social({
      http: this.http,
      state: this.state,
      events: this.events,
      logger: this.logger,
      requireSession: (operation) => this.requireSession(operation),
      rememberUser: (user, announce) => this.rememberUser(user, announce),
    });
    this.voice = new VoiceManager(
      {
        selfId: () => this.state.selfId,
        sendGateway: (op, d) => this.session.send(op, d),
        participantChanged: (lobbyId, userId, added) => this.events.emit('voiceParticipantChanged', lobbyId, userId, added),
        logger: this.logger,
        queueEvents: options.queueEvents === true,
        apiBase,
        webSocket: options.webSocket,
      },
      options.voice,
    );
    this.state.voiceStates = this.voice.states;
    this.session = new GatewaySession(
      {
        token: () => this.http.token,
        gatewayUrl: () => this.gatewayUrl(),
        webSocket: () => resolveWebSocket(options.webSocket),
        dispatch: (event, data) => this.onDispatch(event, data),
        statusChanged: (status, error, detail) => this.onStatusChanged(status, error, detail),
        logger: this.logger,
      },
      {
        backoff: {
          baseDelayMs: options.reconnectBaseDelayMs ?? 1000,
          maxDelayMs: options.reconnectMaxDelayMs ?? 30_000,
        },
        handshakeTimeoutMs: options.handshakeTimeoutMs ?? 30_000,
      },
    );
  }

  // ---- statics ----------------------------------------------------------------------------

  static statusToString(status: ClientStatus): string {
    return statusToString(status);
  }

  static errorToString(error: ClientError): string {
    return errorToString(error);
  }

  /** Scopes for lobbies, messages and voice (includes the presence scopes). */
  static getDefaultCommunicationScopes(): string {
    return 'openid sdk.social_layer';
  }

  /** Scopes for accounts, friends and rich presence. */
  static getDefaultPresenceScopes(): string {
    return 'openid sdk.social_layer_presence';
  }

  // ---- events -----------------------------------------------------------------------------

  /** Adds a listener; returns the function that removes it. */
  on<K extends ClientEventName>(event: K, listener: ClientEvents[K]): Unsubscribe {
    return this.events.on(event, listener);
  }

  /** With `queueEvents`, delivers the events held since the last call. Call once a frame. */
  runCallbacks(): void {
    this.events.runCallbacks();
    this.voice.runCallbacks();
  }

  addLogCallback(callback: LogCallback, minSeverity: LoggingSeverity): void {
    this.logger.add(callback, minSeverity);
  }

  setStatusChangedCallback(callback: ClientEvents['statusChanged'] | null): void {
    this.setCallback('statusChanged', callback);
  }
  setLobbyCreatedCallback(callback: ClientEvents['lobbyCreated'] | null): void {
    this.setCallback('lobbyCreated', callback);
  }
  setLobbyDeletedCallback(callback: ClientEvents['lobbyDeleted'] | null): void {
    this.setCallback('lobbyDeleted', callback);
  }
  setLobbyUpdatedCallback(callback: ClientEvents['lobbyUpdated'] | null): void {
    this.setCallback('lobbyUpdated', callback);
  }
  setLobbyMemberAddedCallback(callback: ClientEvents['lobbyMemberAdded'] | null): void {
    this.setCallback('lobbyMemberAdded', callback);
  }
  setLobbyMemberRemovedCallback(callback: ClientEvents['lobbyMemberRemoved'] | null): void {
    this.setCallback('lobbyMemberRemoved', callback);
  }
  setLobbyMemberUpdatedCallback(callback: ClientEvents['lobbyMemberUpdated'] | null): void {
    this.setCallback('lobbyMemberUpdated', callback);
  }
  setMessageCreatedCallback(callback: ClientEvents['messageCreated'] | null): void {
    this.setCallback('messageCreated', callback);
  }
  setUserUpdatedCallback(callback: ClientEvents['userUpdated'] | null): void {
    this.setCallback('userUpdated', callback);
  }

  /** The native SDK has one slot per event: setting again replaces; null clears. */
  private setCallback<K extends ClientEventName>(event: K, callback: ClientEvents[K] | null): void {
    this.callbackSlots.get(event)?.();
    this.callbackSlots.delete(event);
    if (callback) this.callbackSlots.set(event, this.events.on(event, callback));
  }

  // ---- configuration ----------------------------------------------------------------------

  getApplicationId(): string | undefined {
    return this.applicationId;
  }

  setApplicationId(applicationId: string): void {
    this.applicationId = checkSnowflake(applicationId, 'applicationId');
  }

  /** Timeout for every HTTP request of this client, in ms (default 30000). */
  setHttpRequestTimeout(httpTimeoutInMilliseconds: number): void {
    if (!Number.isFinite(httpTimeoutInMilliseconds) || httpTimeoutInMilliseconds <= 0) {
      throw ClientResultError.validation('HTTP timeout must be a positive number of milliseconds');
    }
    this.http.timeoutMs = httpTimeoutInMilliseconds;
  }

  // ---- authentication ---------------------------------------------------------------------

  /**
   * Gets a provisional (guest) account token for an external identity.
   * `AuthenticationExternalAuthType.DeviceId` with a random ID the game keeps in local storage
   * is the path for web games without a backend: the same ID gives the same user.
   */
  async getProvisionalToken(
    applicationId: string,
    externalAuthType: AuthenticationExternalAuthType,
    externalAuthToken: string,
  ): Promise<TokenExchangeResult> {
    this.ensureAlive();
    checkSnowflake(applicationId, 'applicationId');
    const wireType = checkExternalAuth(externalAuthType, externalAuthToken);
    const body: ProvisionalTokenBody = {
      client_id: applicationId,
      external_auth_type: wireType,
      external_auth_token: externalAuthToken,
    };
    const response = await this.http.request<TokenResponse>({
      method: 'POST',
      path: '/partner-sdk/token',
      body,
      auth: false,
    });
    this.applicationId ??= applicationId;
    this.auth.expiry.saw(response.access_token, response.expires_in);
    return {
      accessToken: response.access_token,
      refreshToken: response.refresh_token ?? '',
      tokenType: AuthorizationTokenType.Bearer,
      expiresIn: response.expires_in,
      scopes: response.scope,
    };
  }

  /**
   * Sets the token for REST calls and the Gateway. While connected nothing reconnects: the new
   * token is used from the next request and the next Identify/Resume.
   */
  async updateToken(tokenType: AuthorizationTokenType, token: string): Promise<void> {
    this.ensureAlive();
    if (tokenType !== AuthorizationTokenType.Bearer) {
      throw ClientResultError.validation('only Bearer tokens are supported');
    }
    if (typeof token !== 'string' || token.length === 0) throw ClientResultError.validation('token must be a non-empty string');
    this.http.token = token.replace(/^Bearer\s+/i, '');
    this.auth.expiry.tokenUpdated(this.http.token);
  }

  /** True when a token is set, valid or not. */
  isAuthenticated(): boolean {
    return Boolean(this.http.token);
  }

  /** Sets the provisional account's display name (its `global_name`). */
  async updateProvisionalAccountDisplayName(name: string): Promise<void> {
    this.ensureAlive();
    checkDisplayName(name);
    const user = await this.http.request<User>({
      method: 'PATCH',
      path: '/users/@me',
      body: { global_name: name },
      auth: true,
    });
    this.rememberUser(user, true);
  }

  // ---- account linking (OAuth2; bindings/client/src/auth/) --------------------------------

  /** A PKCE pair: pass `.challenge()` to AuthorizationArgs.setCodeChallenge, `.verifier()` to getToken. */
  createAuthorizationCodeVerifier(): AuthorizationCodeVerifier {
    return this.auth.createAuthorizationCodeVerifier();
  }

  /**
   * Opens the platform's authorize page (a popup in browsers; `setAuthorizeOpener` elsewhere)
   * and resolves with the code and redirect URI. Rejects with Aborted when the user cancels,
   * AuthorizationFailed when the server refuses or the state does not match.
   */
  authorize(args: AuthorizationArgs): Promise<AuthorizationResult> {
    this.ensureAlive();
    return this.auth.authorize(args);
  }

  abortAuthorize(): void {
    this.auth.abortAuthorize();
  }

  /** How authorize() shows the page: receives the URL, resolves with the URL the browser was sent back to. */
  setAuthorizeOpener(opener: AuthorizeOpener | null): void {
    this.auth.opener = opener ?? undefined;
  }

  /** What getTokenFromDevice shows the player (the user code and where to enter it). */
  setAuthorizeDeviceScreen(screen: DeviceScreen | null): void {
    this.auth.deviceScreen = screen ?? undefined;
  }

  getToken(applicationId: string, code: string, codeVerifier: string, redirectUri: string): Promise<TokenExchangeResult> {
    this.ensureAlive();
    return this.auth.getToken(applicationId, code, codeVerifier, redirectUri);
  }

  getTokenFromDevice(args: DeviceAuthorizationArgs): Promise<TokenExchangeResult> {
    this.ensureAlive();
    return this.auth.getTokenFromDevice(args);
  }

  abortGetTokenFromDevice(): void {
    this.auth.abortGetTokenFromDevice();
  }

  /** getToken that also merges the provisional account of the external identity into the full account. */
  getTokenFromProvisionalMerge(applicationId: string, code: string, codeVerifier: string, redirectUri: string, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<TokenExchangeResult> {
    this.ensureAlive();
    return this.auth.getTokenFromProvisionalMerge(applicationId, code, codeVerifier, redirectUri, externalAuthType, externalAuthToken);
  }

  getTokenFromDeviceProvisionalMerge(args: DeviceAuthorizationArgs, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<TokenExchangeResult> {
    this.ensureAlive();
    return this.auth.getTokenFromDeviceProvisionalMerge(args, externalAuthType, externalAuthToken);
  }

  /** A new access and refresh token; the old pair stops working. A deleted token gives AuthorizationFailed `invalid_grant`. */
  refreshToken(applicationId: string, refreshToken: string): Promise<TokenExchangeResult> {
    this.ensureAlive();
    return this.auth.refreshToken(applicationId, refreshToken);
  }

  /** Revokes every token of the user for the application (sign out everywhere). */
  revokeToken(applicationId: string, token: string): Promise<void> {
    this.ensureAlive();
    return this.auth.revokeToken(applicationId, token);
  }

  exchangeChildToken(parentApplicationToken: string, childApplicationId: string): Promise<ChildTokenResult> {
    this.ensureAlive();
    return this.auth.exchangeChildToken(parentApplicationToken, childApplicationId);
  }

  unmergeIntoProvisionalAccount(applicationId: string, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<void> {
    this.ensureAlive();
    return this.auth.unmergeIntoProvisionalAccount(applicationId, externalAuthType, externalAuthToken);
  }

  /**
   * AUTHORIZE_REQUEST: the platform asks the game to start its account-link flow; the callback
   * should start it as if the player clicked "link". The registration lives on the client, so it
   * holds across disconnects and reconnects.
   */
  registerAuthorizeRequestCallback(callback: () => void): void {
    this.authorizeRequestCallback = callback;
  }

  removeAuthorizeRequestCallback(): void {
    this.authorizeRequestCallback = null;
  }

  // ---- token checks and the account page (src/auth/ClientAuth.ts, src/auth/TokenExpiry.ts) ----

  /**
   * Fires once per token when the token last passed to updateToken has less than
   * `nearExpiryMs` left (default one day) or has expired; never while disconnected. Refresh,
   * then updateToken again. null removes it.
   */
  setTokenExpirationCallback(callback: TokenExpirationCallback | null, nearExpiryMs = DEFAULT_TOKEN_EXPIRY_THRESHOLD_MS): void {
    if (!Number.isFinite(nearExpiryMs) || nearExpiryMs < 0) throw ClientResultError.validation('nearExpiryMs must be a non-negative number of milliseconds');
    this.auth.expiry.setCallback(callback, nearExpiryMs);
  }

  /** Validates a token without connecting: the user it belongs to, or HTTPError 401. */
  fetchCurrentUser(tokenType: AuthorizationTokenType, token: string): Promise<CurrentUserResult> {
    this.ensureAlive();
    return this.auth.fetchCurrentUser(tokenType, token);
  }

  /** Opens the platform's connected-games page; rejects without opening anything when not connected or provisional. */
  openConnectedGamesSettingsInDiscord(): Promise<void> {
    this.ensureAlive();
    return this.auth.openConnectedGamesSettings(this.session.status === ClientStatus.Ready, this.getCurrentUserV2()?.isProvisional);
  }

  /** How openConnectedGamesSettingsInDiscord shows the page outside browsers (browsers use a popup). */
  setAccountPageOpener(opener: PageOpener | null): void {
    this.auth.pageOpener = opener ?? undefined;
  }

  // ---- connection -------------------------------------------------------------------------

  getStatus(): ClientStatus {
    return this.session.status;
  }

  /**
   * Connects to the Gateway and resolves at Ready. Rejects with ClientResultError when the
   * attempt ends in Disconnected (bad token -> AuthorizationFailed with errorCode 4004,
   * unreachable server -> NetworkError, disconnect() meanwhile -> Aborted).
   */
  async connect(): Promise<void> {
    this.ensureAlive();
    if (!this.state.lobbies) {
      this.lobbyStateLoading ??= LobbyState.create();
      try {
        this.state.lobbies = await this.lobbyStateLoading;
      } catch (error) {
        this.lobbyStateLoading = undefined;
        throw new ClientResultError({
          type: ErrorType.ClientNotReady,
          error: `the lobby state module failed to load: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    }
    return this.session.connect();
  }

  /** Resolves once the status is Disconnected. */
  disconnect(): Promise<void> {
    return this.session.disconnect();
  }

  /** Disconnects, drops every listener, and turns existing handles into empty views. */
  async destroy(): Promise<void> {
    if (this.state.destroyed) return;
    await this.voice.endCalls();
    this.voice.destroy();
    await this.session.disconnect();
    this.state.destroyed = true;
    this.events.clear();
    this.callbackSlots.clear();
    this.logger.clear();
  }

  // ---- users ------------------------------------------------------------------------------

  /** The signed-in user, once READY has arrived. */
  getCurrentUserV2(): UserHandle | undefined {
    const id = this.state.selfId;
    return id && this.state.user(id) ? new UserHandle(this.state, id) : undefined;
  }

  /** Any user the client has seen (lobby co-members, message authors). */
  getUser(userId: string): UserHandle | undefined {
    return this.state.user(userId) ? new UserHandle(this.state, userId) : undefined;
  }

  // ---- lobbies ----------------------------------------------------------------------------

  createOrJoinLobby(secret: string): Promise<string> {
    return this.createOrJoin(secret, undefined, undefined);
  }

  /** Later calls with the same secret overwrite the lobby's and the member's metadata. */
  createOrJoinLobbyWithMetadata(secret: string, lobbyMetadata: Metadata, memberMetadata: Metadata): Promise<string> {
    return this.createOrJoin(secret, lobbyMetadata, memberMetadata);
  }

  private async createOrJoin(secret: string, lobbyMetadata?: Metadata, memberMetadata?: Metadata): Promise<string> {
    const body: CreateOrJoinLobbyBody = { secret: checkLobbySecret(secret) };
    if (lobbyMetadata !== undefined) body.lobby_metadata = checkMetadata(lobbyMetadata, 'lobbyMetadata');
    if (memberMetadata !== undefined) body.member_metadata = checkMetadata(memberMetadata, 'memberMetadata');
    this.requireSession('createOrJoinLobby');
    const lobby = await this.http.request<Lobby>({ method: 'PUT', path: '/lobbies', body, auth: true });
    // The LOBBY_CREATE dispatch may come before or after this response. Take the response only
    // for a lobby not known yet: if the dispatch came first, its state is at least as new.
    this.leftLobbies.delete(lobby.id);
    const state = this.state.lobbies;
    if (state && !state.has(lobby.id)) this.applyLobby(lobby);
    return lobby.id;
  }

  async leaveLobby(lobbyId: string): Promise<void> {
    checkSnowflake(lobbyId, 'lobbyId');
    this.requireSession('leaveLobby');
    await this.http.request<void>({ method: 'DELETE', path: `/lobbies/${lobbyId}/members/@me`, auth: true });
    // Deleted locally now rather than when LOBBY_DELETE arrives, which then changes nothing.
    this.leftLobbies.add(lobbyId);
    this.removeLobby(lobbyId);
  }

  getLobbyHandle(lobbyId: string): LobbyHandle | undefined {
    return this.state.lobbyState(lobbyId) ? new LobbyHandle(this.state, lobbyId) : undefined;
  }

  /** The lobbies the current user is in, as last synchronised. */
  getLobbyIds(): string[] {
    if (this.state.destroyed || !this.state.lobbies) return [];
    return this.state.lobbies.lobbyIds();
  }

  // ---- messages ---------------------------------------------------------------------------

  sendLobbyMessage(lobbyId: string, content: string): Promise<string> {
    return this.sendToLobby(lobbyId, content, undefined);
  }

  sendLobbyMessageWithMetadata(lobbyId: string, content: string, metadata: Metadata): Promise<string> {
    return this.sendToLobby(lobbyId, content, metadata);
  }

  private async sendToLobby(lobbyId: string, content: string, metadata?: Metadata): Promise<string> {
    checkSnowflake(lobbyId, 'lobbyId');
    const body: SendLobbyMessageBody = { content: checkMessageContent(content) };
    if (metadata !== undefined) body.metadata = checkMetadata(metadata, 'metadata');
    this.requireSession('sendLobbyMessage');
    const message = await this.http.request<LobbyMessage>({
      method: 'POST',
      path: `/lobbies/${lobbyId}/messages`,
      body,
      auth: true,
    });
    // Cached now so getMessageHandle works as soon as this resolves; messageCreated still fires
    // once, when the Gateway delivers the message to every member including the sender.
    this.rememberUser(message.author, true);
    this.state.messages.put(this.messageRecord(message));
    return message.id;
  }

  /**
   * Lobby history over HTTP, newest first (the native header's order), at most 200 messages
   * and 72 hours; `limit <= 0` means the maximum.
   */
  async getLobbyMessagesWithLimit(lobbyId: string, limit: number): Promise<MessageHandle[]> {
    checkSnowflake(lobbyId, 'lobbyId');
    const max = Limits.lobbyMessagesMaxPerRead;
    const count = !Number.isFinite(limit) || limit <= 0 ? max : Math.min(Math.floor(limit), max);
    this.requireSession('getLobbyMessagesWithLimit');
    const messages = await this.http.request<LobbyMessage[]>({
      method: 'GET',
      path: `/lobbies/${lobbyId}/messages?limit=${count}`,
      auth: true,
    });
    const sorted = [...messages].sort((a, b) => compareSnowflakes(b.id, a.id));
    return sorted.map((message) => {
      this.rememberUser(message.author, true);
      // Reuse the cached record so handles of one message share state; history itself is not
      // added to the cache, which holds what arrived live.
      const record = this.state.messages.get(message.id) ?? this.messageRecord(message);
      return new MessageHandle(this.state, record);
    });
  }

  /** A message from the cache of the 25 most recent per channel (live messages only). */
  getMessageHandle(messageId: string): MessageHandle | undefined {
    if (this.state.destroyed) return undefined;
    const record = this.state.messages.get(messageId);
    return record ? new MessageHandle(this.state, record) : undefined;
  }

  // ---- social: relationships, presence, invites, direct messages (issue 6) -------------------
  // Thin delegates; the logic lives in src/social/.

  sendDiscordFriendRequest(username: string): Promise<void> {
    return this.social.relationships.sendDiscordFriendRequest(username);
  }
  sendDiscordFriendRequestById(userId: string): Promise<void> {
    return this.social.relationships.sendDiscordFriendRequestById(userId);
  }
  sendGameFriendRequest(username: string): Promise<void> {
    return this.social.relationships.sendGameFriendRequest(username);
  }
  sendGameFriendRequestById(userId: string): Promise<void> {
    return this.social.relationships.sendGameFriendRequestById(userId);
  }
  acceptDiscordFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.acceptDiscordFriendRequest(userId);
  }
  acceptGameFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.acceptGameFriendRequest(userId);
  }
  rejectDiscordFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.rejectDiscordFriendRequest(userId);
  }
  rejectGameFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.rejectGameFriendRequest(userId);
  }
  cancelDiscordFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.cancelDiscordFriendRequest(userId);
  }
  cancelGameFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.cancelGameFriendRequest(userId);
  }
  removeDiscordAndGameFriend(userId: string): Promise<void> {
    return this.social.relationships.removeDiscordAndGameFriend(userId);
  }
  removeGameFriend(userId: string): Promise<void> {
    return this.social.relationships.removeGameFriend(userId);
  }
  blockUser(userId: string): Promise<void> {
    return this.social.relationships.blockUser(userId);
  }
  unblockUser(userId: string): Promise<void> {
    return this.social.relationships.unblockUser(userId);
  }
  getRelationships(): RelationshipHandle[] {
    return this.social.relationships.getRelationships();
  }
  getRelationshipHandle(userId: string): RelationshipHandle {
    return this.social.relationships.getRelationshipHandle(userId);
  }
  getRelationshipsByGroup(groupType: RelationshipGroupType): RelationshipHandle[] {
    return this.social.relationships.getRelationshipsByGroup(groupType);
  }
  updateRichPresence(activity: Activity): Promise<void> {
    return this.social.presence.updateRichPresence(activity);
  }
  clearRichPresence(): Promise<void> {
    return this.social.presence.clearRichPresence();
  }
  setOnlineStatus(status: StatusType): Promise<void> {
    return this.social.presence.setOnlineStatus(status);
  }
  sendActivityInvite(userId: string, content: string): Promise<void> {
    return this.social.invites.sendActivityInvite(userId, content);
  }
  sendActivityJoinRequest(userId: string): Promise<void> {
    return this.social.invites.sendActivityJoinRequest(userId);
  }
  sendActivityJoinRequestReply(invite: ActivityInvite): Promise<void> {
    return this.social.invites.sendActivityJoinRequestReply(invite);
  }
  /** Resolves with the join secret to hand to createOrJoinLobby. */
  acceptActivityInvite(invite: ActivityInvite): Promise<string> {
    return this.social.invites.acceptActivityInvite(invite);
  }
  /** Web games: the URL that starts the game, for invite deep links (`<url>?invite=<id>`). */
  registerLaunchCommand(applicationId: string, command: string): boolean {
    return this.social.invites.registerLaunchCommand(applicationId, command);
  }
  sendUserMessage(recipientId: string, content: string): Promise<string> {
    return this.social.directMessages.sendUserMessage(recipientId, content);
  }
  sendUserMessageWithMetadata(recipientId: string, content: string, metadata: Metadata): Promise<string> {
    return this.social.directMessages.sendUserMessageWithMetadata(recipientId, content, metadata);
  }
  editUserMessage(recipientId: string, messageId: string, content: string): Promise<void> {
    return this.social.directMessages.editUserMessage(recipientId, messageId, content);
  }
  deleteUserMessage(recipientId: string, messageId: string): Promise<void> {
    return this.social.directMessages.deleteUserMessage(recipientId, messageId);
  }
  getUserMessageSummaries(): Promise<UserMessageSummary[]> {
    return this.social.directMessages.getUserMessageSummaries();
  }
  getUserMessagesWithLimit(recipientId: string, limit: number): Promise<MessageHandle[]> {
    return this.social.directMessages.getUserMessagesWithLimit(recipientId, limit);
  }
  setRelationshipCreatedCallback(callback: ClientEvents['relationshipCreated'] | null): void {
    this.setCallback('relationshipCreated', callback);
  }
  setRelationshipDeletedCallback(callback: ClientEvents['relationshipDeleted'] | null): void {
    this.setCallback('relationshipDeleted', callback);
  }
  setRelationshipGroupsUpdatedCallback(callback: ClientEvents['relationshipGroupsUpdated'] | null): void {
    this.setCallback('relationshipGroupsUpdated', callback);
  }
  setActivityInviteCreatedCallback(callback: ClientEvents['activityInviteCreated'] | null): void {
    this.setCallback('activityInviteCreated', callback);
  }
  setActivityInviteUpdatedCallback(callback: ClientEvents['activityInviteUpdated'] | null): void {
    this.setCallback('activityInviteUpdated', callback);
  }
  setMessageUpdatedCallback(callback: ClientEvents['messageUpdated'] | null): void {
    this.setCallback('messageUpdated', callback);
  }
  setMessageDeletedCallback(callback: ClientEvents['messageDeleted'] | null): void {
    this.setCallback('messageDeleted', callback);
  }

  // ---- voice (issue 4): thin delegations to src/voice/VoiceManager.ts ---------------------

  /** Joins the call of a lobby we are in; undefined when already in it (as the native SDK). */
  startCall(lobbyId: string): Call | undefined {
    checkSnowflake(lobbyId, 'lobbyId');
    this.requireSession('startCall');
    return this.voice.startCall(lobbyId);
  }

  /**
   * startCall with PCM hooks (48 kHz Int16; Node bots and tests, or custom audio routing):
   * `onReceived(userId, samples, samplesPerChannel, sampleRate, channels, out)` gets each 20 ms
   * of a participant (change it in place; `out.shouldMute = true` or returning true keeps the
   * SDK from playing it), `onCaptured` each 20 ms of local input. Feed input in Node with
   * `call.pushCapturedAudio(samples)`.
   */
  startCallWithAudioCallbacks(lobbyId: string, onReceived: UserAudioReceivedCallback | null, onCaptured: UserAudioCapturedCallback | null): Call | undefined {
    checkSnowflake(lobbyId, 'lobbyId');
    this.requireSession('startCallWithAudioCallbacks');
    return this.voice.startCall(lobbyId, { onReceived: onReceived ?? undefined, onCaptured: onCaptured ?? undefined });
  }

  /** Leaves the call; resolves once it is Disconnected (the Call becomes invalid). */
  endCall(lobbyId: string): Promise<void> {
    return this.voice.endCall(lobbyId);
  }

  endCalls(): Promise<void> {
    return this.voice.endCalls();
  }

  getCall(lobbyId: string): Call | undefined {
    return this.voice.getCall(lobbyId);
  }

  getCalls(): Call[] {
    return this.voice.getCalls();
  }

  /** The call of a lobby we are in, whether or not we joined it; undefined when nobody is in it. */
  getCallInfoHandle(lobbyId: string): CallInfoHandle | undefined {
    return this.voice.getCallInfoHandle(lobbyId);
  }

  /** `(lobbyId, memberId, added)` when anyone joins or leaves a lobby's call, joined or not. */
  setVoiceParticipantChangedCallback(callback: ClientEvents['voiceParticipantChanged'] | null): void {
    this.setCallback('voiceParticipantChanged', callback);
  }

  getInputDevices(): Promise<AudioDevice[]> {
    return this.voice.getInputDevices();
  }
  getOutputDevices(): Promise<AudioDevice[]> {
    return this.voice.getOutputDevices();
  }
  getCurrentInputDevice(): Promise<AudioDevice> {
    return this.voice.getCurrentInputDevice();
  }
  getCurrentOutputDevice(): Promise<AudioDevice> {
    return this.voice.getCurrentOutputDevice();
  }
  setInputDevice(deviceId: string): Promise<void> {
    return this.voice.setInputDevice(deviceId);
  }
  setOutputDevice(deviceId: string): Promise<void> {
    return this.voice.setOutputDevice(deviceId);
  }
  setDeviceChangeCallback(callback: ((inputDevices: AudioDevice[], outputDevices: AudioDevice[]) => void) | null): void {
    this.voice.setDeviceChangeCallback(callback);
  }
  static getDefaultAudioDeviceId(): string {
    return 'default';
  }
  /** 0-100. */
  setInputVolume(volume: number): void {
    this.voice.setInputVolume(volume);
  }
  getInputVolume(): number {
    return this.voice.getInputVolume();
  }
  /** 0-200. */
  setOutputVolume(volume: number): void {
    this.voice.setOutputVolume(volume);
  }
  getOutputVolume(): number {
    return this.voice.getOutputVolume();
  }
  setSelfMuteAll(mute: boolean): void {
    this.voice.setSelfMuteAll(mute);
  }
  getSelfMuteAll(): boolean {
    return this.voice.getSelfMuteAll();
  }
  setSelfDeafAll(deaf: boolean): void {
    this.voice.setSelfDeafAll(deaf);
  }
  getSelfDeafAll(): boolean {
    return this.voice.getSelfDeafAll();
  }

  // ---- internals --------------------------------------------------------------------------

  private ensureAlive(): void {
    if (this.state.destroyed) throw ClientResultError.destroyed();
  }

  /** Operations that rely on Gateway-synchronised state need a session that reached Ready. */
  private requireSession(operation: string): void {
    this.ensureAlive();
    const status = this.session.status;
    const live = status === ClientStatus.Ready || (status === ClientStatus.Reconnecting && this.hadReady);
    if (!live) throw ClientResultError.notReady(operation);
  }

  private async gatewayUrl(): Promise<string> {
    if (this.gatewayUrlCache) return this.gatewayUrlCache;
    const { url } = await this.http.request<{ url: string }>({ method: 'GET', path: '/gateway', auth: false });
    this.gatewayUrlCache = url;
    return url;
  }

  private onStatusChanged(status: ClientStatus, error: ClientError, detail: number): void {
    this.auth.expiry.statusChanged(status);
    if (status === ClientStatus.Disconnected) {
      // Without a session the lobby state would go stale unnoticed; READY rebuilds it.
      this.hadReady = false;
      this.heldLobbyEvents = undefined;
      this.leftLobbies.clear();
      this.state.lobbies?.reset();
      this.state.additionalNames.clear();
      this.social.reset();
      this.voice.onDisconnected();
    }
    this.events.emit('statusChanged', status, error, detail);
    if (status === ClientStatus.Ready && this.heldLobbyEvents) {
      const held = this.heldLobbyEvents;
      this.heldLobbyEvents = undefined;
      for (const pending of held) this.emitLobbyEvent(pending);
    }
    if (status === ClientStatus.Ready) this.social.flushHeld();
    if (status === ClientStatus.Ready) this.voice.onGatewayReady();
  }

  private onDispatch(event: string, data: unknown): void {
    switch (event) {
      case DispatchEvent.Ready:
        this.onReady(data as ReadyData);
        return;
      case AUTHORIZE_REQUEST_EVENT: {
        const callback = this.authorizeRequestCallback;
        if (callback) queueMicrotask(() => callback());
        return;
      }
      case DispatchEvent.Resumed:
        return;
      case DispatchEvent.LobbyCreate:
        // Joined (again): whatever was left before is over.
        this.leftLobbies.delete((data as Lobby).id);
        this.applyLobby(data as Lobby);
        return;
      case DispatchEvent.LobbyUpdate:
        if (!this.leftLobbies.has((data as Lobby).id)) this.applyLobby(data as Lobby);
        return;
      case DispatchEvent.LobbyDelete:
        this.leftLobbies.delete((data as LobbyDeleteData).id);
        this.removeLobby((data as LobbyDeleteData).id);
        return;
      case DispatchEvent.LobbyMemberAdd:
      case DispatchEvent.LobbyMemberUpdate:
        if (!this.leftLobbies.has((data as LobbyMemberEventData).lobby_id)) this.applyMember(data as LobbyMemberEventData);
        return;
      case DispatchEvent.LobbyMemberRemove:
        this.removeMember(data as LobbyMemberEventData);
        return;
      case DispatchEvent.LobbyMessageCreate:
        this.onLobbyMessage(data as LobbyMessage);
        return;
      case DispatchEvent.VoiceStateUpdate:
        this.voice.onVoiceStateUpdate(data as VoiceState);
        return;
      case DispatchEvent.VoiceServerUpdate:
        this.voice.onVoiceServerUpdate(data as VoiceServerUpdate);
        return;
      default:
        if (this.social.onDispatch(event, data)) return;
        this.logger.verbose(`dispatch ${event} ignored`);
    }
  }

  private onReady(ready: ReadyData): void {
    const lobbies = this.state.lobbies;
    if (!lobbies) return;
    if (this.state.selfId !== undefined && this.state.selfId !== ready.user.id) {
      // Another account on the same client: nothing of the previous one may leak into this one.
      lobbies.reset();
      this.state.messages.clear();
      this.state.additionalNames.clear();
    }
    const accountChanged = this.state.selfId !== undefined && this.state.selfId !== ready.user.id;
    this.state.selfId = ready.user.id;
    lobbies.setSelf(ready.user.id);
    this.rememberUser(ready.user, false);
    if (ready.application?.id) this.applicationId ??= ready.application.id;
    // READY is the truth after a fresh Identify: lobbies not in it are gone (endSync deletes).
    this.leftLobbies.clear();
    lobbies.beginSync();
    for (const lobby of ready.lobbies ?? []) {
      this.rememberLobbyExtras(lobby);
      lobbies.upsertLobby(lobbySnapshot(lobby, this.state.selfId));
    }
    lobbies.endSync();
    this.hadReady = true;
    // Announced after statusChanged(Ready), so listeners can already use Ready-only calls.
    this.heldLobbyEvents = [...(this.heldLobbyEvents ?? []), ...this.drainLobbyEvents()];
    this.social.onReady(ready as ReadyData & SocialReadyData, accountChanged);
  }

  private applyLobby(lobby: Lobby): void {
    const lobbies = this.state.lobbies;
    if (!lobbies) return;
    this.rememberLobbyExtras(lobby);
    lobbies.upsertLobby(lobbySnapshot(lobby, this.state.selfId));
    this.flushLobbyEvents();
  }

  private removeLobby(lobbyId: string): void {
    const lobbies = this.state.lobbies;
    if (!lobbies || !lobbies.has(lobbyId)) return;
    lobbies.removeLobby(lobbyId);
    this.state.forgetLobby(lobbyId);
    this.voice.onLobbyGone(lobbyId);
    this.flushLobbyEvents();
  }

  private applyMember({ lobby_id: lobbyId, member }: LobbyMemberEventData): void {
    const lobbies = this.state.lobbies;
    if (!lobbies || !lobbies.has(lobbyId)) {
      this.logger.verbose(`member update for unknown lobby ${lobbyId} ignored`);
      return;
    }
    this.rememberMemberExtras(lobbyId, member);
    lobbies.upsertMember(lobbyId, memberSnapshot(member, this.state.selfId));
    this.flushLobbyEvents();
  }

  private removeMember({ lobby_id: lobbyId, member }: LobbyMemberEventData): void {
    const lobbies = this.state.lobbies;
    if (!lobbies || !lobbies.has(lobbyId)) return;
    lobbies.removeMember(lobbyId, member.id);
    this.state.setAdditionalName(lobbyId, member.id, null);
    this.flushLobbyEvents();
  }

  private onLobbyMessage(message: LobbyMessage): void {
    this.rememberUser(message.author, true);
    const record = this.state.messages.put(this.messageRecord(message));
    if (record.announced) return;
    record.announced = true;
    this.events.emit('messageCreated', message.id);
  }

  private rememberLobbyExtras(lobby: Lobby): void {
    this.voice.onLobby(lobby);
    for (const member of lobby.members ?? []) this.rememberMemberExtras(lobby.id, member);
  }

  private rememberMemberExtras(lobbyId: string, member: LobbyMember): void {
    if (member.user) this.rememberUser(member.user, true);
    this.state.setAdditionalName(lobbyId, member.id, member.additional_name);
  }

  private rememberUser(user: User | undefined, announce: boolean): void {
    if (!user?.id) return;
    if (this.state.rememberUser(user) && announce) this.events.emit('userUpdated', user.id);
  }

  private messageRecord(message: LobbyMessage): MessageRecord {
    const parsed = Date.parse(message.timestamp);
    return {
      id: message.id,
      channelId: message.channel_id ?? message.lobby_id,
      lobbyId: message.lobby_id ?? '0',
      authorId: message.author?.id ?? '0',
      applicationId: message.application_id ?? '0',
      content: message.content ?? '',
      metadata: { ...(message.metadata ?? {}) },
      moderationMetadata: { ...(message.moderation_metadata ?? {}) },
      sentTimestamp: Number.isFinite(parsed) ? parsed : snowflakeTimestamp(message.id),
      additionalName: message.lobby_member?.additional_name ?? null,
      announced: false,
    };
  }

  private drainLobbyEvents(): PendingLobbyEvent[] {
    const out: PendingLobbyEvent[] = [];
    for (const { kind, lobbyId, memberId } of this.state.lobbies?.drainEvents() ?? []) {
      const event = LOBBY_EVENT_NAMES[kind];
      if (!event) continue;
      if (event === 'lobbyCreated' || event === 'lobbyDeleted' || event === 'lobbyUpdated') out.push({ event, lobbyId });
      else out.push({ event, lobbyId, memberId });
    }
    return out;
  }

  private flushLobbyEvents(): void {
    for (const pending of this.drainLobbyEvents()) this.emitLobbyEvent(pending);
  }

  private emitLobbyEvent(pending: PendingLobbyEvent): void {
    if ('memberId' in pending) this.events.emit(pending.event, pending.lobbyId, pending.memberId);
    else this.events.emit(pending.event, pending.lobbyId);
  }
}

function compareSnowflakes(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
