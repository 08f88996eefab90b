import {
  ClientStatus,
  DispatchEvent,
  AUTHORIZE_REQUEST_EVENT,
  type AuthenticationExternalAuthType,
  type AuthorizationTokenType,
  type ClientError,
  type LoggingSeverity,
  type Metadata,
  type ReadyData,
  type RelationshipGroupType,
  type SocialReadyData,
  type StatusType,
  type VoiceServerUpdate,
  type VoiceState,
} from '@social-layer/protocol';
import type { Activity } from './Activity.ts';
import type { ActivityInvite } from './ActivityInvite.ts';
import type { AuthorizationArgs, AuthorizationCodeVerifier, DeviceAuthorizationArgs } from './auth/AuthorizationArgs.ts';
import type { AuthorizationResult, AuthorizeOpener, PageOpener } from './auth/authorizeFlow.ts';
import { AuthorizeDeviceScreen } from './auth/AuthorizeDeviceScreen.ts';
import { ClientAuth, type ChildTokenResult, type CurrentUserResult, type DeviceScreen } from './auth/ClientAuth.ts';
import { ProvisionalTokens, type TokenExchangeResult } from './auth/ProvisionalTokens.ts';
import { DEFAULT_TOKEN_EXPIRY_THRESHOLD_MS, type TokenExpirationCallback } from './auth/TokenExpiry.ts';
import { ClientCreateOptions, checkBaseUrl } from './ClientCreateOptions.ts';
import { ClientResultError } from './ClientResultError.ts';
import { ClientState } from './ClientState.ts';
import { noDesktopCompanion } from './desktop/DesktopCompanion.ts';
import { Platform } from './diagnostics/Platform.ts';
import { threadToString, type ClientThread } from './enums.ts';
import { EventHub } from './EventHub.ts';
import type { ClientEventName, ClientEvents, Unsubscribe } from './events.ts';
import { GatewaySession } from './GatewaySession.ts';
import { HttpApi } from './HttpApi.ts';
import { Lobbies } from './lobbies/Lobbies.ts';
import { LinkedChannels, type ProvisionalUserMergeRequiredCallback } from './lobbies/LinkedChannels.ts';
import type { GuildChannel, GuildMinimal } from './lobbies/linkedChannelTypes.ts';
import type { ChannelHandle } from './ChannelHandle.ts';
import { popupPageOpener } from './auth/authorizeFlow.ts';
import type { LobbyHandle } from './LobbyHandle.ts';
import { Logger, type LogCallback } from './Logger.ts';
import type { MessageHandle } from './MessageHandle.ts';
import { defaultApiBase, type ClientOptions } from './options.ts';
import type { RelationshipHandle } from './RelationshipHandle.ts';
import { Social } from './social/Social.ts';
import { errorToString, statusToString } from './strings.ts';
import type { UserApplicationProfileHandle } from './UserApplicationProfileHandle.ts';
import type { UserHandle } from './UserHandle.ts';
import type { UserMessageSummary } from './UserMessageSummary.ts';
import { Users } from './users/Users.ts';
import { checkSnowflake } from './validation.ts';
import { VERSION, versionHash } from './version.ts';
import type { AudioDevice, AudioProcessingSettings } from './voice/audio/AudioEngine.ts';
import type { Call } from './voice/Call.ts';
import type { CallInfoHandle } from './voice/CallInfoHandle.ts';
import type { UserAudioCapturedCallback, UserAudioReceivedCallback } from './voice/MediaPipeline.ts';
import { VoiceManager } from './voice/VoiceManager.ts';
import { resolveWebSocket } from './webSocket.ts';

export type { TokenExchangeResult } from './auth/ProvisionalTokens.ts';

/**
 * The Social Layer client: the spec's `sdkpp::Client` in camelCase, with Promises for the
 * callbacks and typed events. One instance per signed-in user.
 *
 * A facade, as livekit's Room is: each member delegates in one line to the part that owns it,
 * `lobbies/` (lobbies and their messages), `social/` (relationships, presence, invites, DMs),
 * `users/`, `auth/`, `voice/` (calls, devices, audio processing, voice diagnostics) and
 * `diagnostics/` (log files, platform hooks). What stays here is the wiring between them and the
 * Gateway session: status changes and dispatch routing.
 */
export class Client {
  private readonly http: HttpApi;
  private readonly auth: ClientAuth;
  private readonly tokens: ProvisionalTokens;
  private readonly deviceScreens: AuthorizeDeviceScreen;
  private authorizeRequestCallback: (() => void) | null = null;
  private readonly logger = new Logger();
  private readonly events: EventHub<ClientEvents>;
  private readonly state = new ClientState();
  private readonly session: GatewaySession;
  private readonly callbackSlots = new Map<ClientEventName, Unsubscribe>();
  private readonly createOptions: ClientCreateOptions;
  private readonly webBase: string;
  private applicationId: string | undefined;
  private gatewayUrlCache: string | undefined;
  /** READY seen since the last Disconnected: lobby state is valid even while Reconnecting. */
  private hadReady = false;
  /** Lobbies and lobby messages (src/lobbies/). */
  private readonly lobbies: Lobbies;
  /** Linked channels, the SDK's guild surface, channel handles (src/lobbies/LinkedChannels.ts, issue 12). */
  private readonly linked: LinkedChannels;
  /** Relationships, presence, invites and direct messages (src/social/). */
  private readonly social: Social;
  /** User objects, lookups, friend search, the desktop session's user (src/users/). */
  private readonly users: Users;
  /** Calls, voice states, audio devices, volumes, processing and voice diagnostics (src/voice/). */
  private readonly voice: VoiceManager;
  /** Log file, thread priorities, game window (src/diagnostics/). */
  private readonly platform: Platform;
  private readonly unsubscribeDesktop: (() => void) | undefined;

  /**
   * `new Client()`, `new Client(options)`, `new Client(apiBase, webBase)` (the native pair of
   * base URLs) or `new Client(clientCreateOptions)`. Bad URLs throw ValidationError.
   */
  constructor(options?: ClientOptions | ClientCreateOptions);
  constructor(apiBase: string, webBase: string);
  constructor(first: ClientOptions | ClientCreateOptions | string = {}, second?: string) {
    const options = normalizeOptions(first, second);
    this.createOptions = createOptionsOf(options);
    const apiBase = (options.apiBase || defaultApiBase()).replace(/\/+$/, '');
    this.webBase = options.webBase ? options.webBase.replace(/\/+$/, '') : apiBase;
    this.state.cdnBase = apiBase;
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.http = new HttpApi(apiBase, fetchImpl, this.logger);
    this.auth = new ClientAuth({ http: this.http, logger: this.logger, apiBase, applicationId: () => this.applicationId });
    if (options.httpTimeoutMs !== undefined) this.setHttpRequestTimeout(options.httpTimeoutMs);
    this.applicationId = options.applicationId;
    this.events = new EventHub<ClientEvents>(options.queueEvents === true, (event, error) =>
      this.logger.error(`a ${event} listener threw: ${error instanceof Error ? error.message : String(error)}`),
    );
    const desktop = options.desktopCompanion ?? noDesktopCompanion;
    this.users = new Users(this.state, this.events, desktop);
    this.unsubscribeDesktop = desktop.onActivityJoin?.((applicationId, joinSecret) => this.onActivityJoin(applicationId, joinSecret));
    this.tokens = new ProvisionalTokens({
      http: this.http,
      expiry: this.auth.expiry,
      adoptApplicationId: (id) => (this.applicationId ??= id),
      rememberUser: (user, announce) => this.users.remember(user, announce),
    });
    this.deviceScreens = new AuthorizeDeviceScreen(() => this.auth.deviceScreen, () => this.webBase);
    this.platform = new Platform(this.logger);
    this.social = new Social({
      http: this.http,
      state: this.state,
      events: this.events,
      logger: this.logger,
      requireSession: (operation) => this.requireSession(operation),
      rememberUser: (user, announce) => this.users.remember(user, announce),
      desktopActivity: async (activity) => {
        if (!desktop.setActivity || !this.applicationId) return false;
        await desktop.setActivity(this.applicationId, activity);
        return true;
      },
    });
    this.voice = new VoiceManager(
      {
        selfId: () => this.state.selfId,
        sendGateway: (op, d) => this.session.send(op, d),
        participantChanged: (lobbyId, userId, added) => this.events.emit('voiceParticipantChanged', lobbyId, userId, added),
        noAudioInput: (inputDetected) => this.events.emit('noAudioInput', inputDetected),
        queueEvents: options.queueEvents === true,
        apiBase,
        webSocket: options.webSocket,
      },
      options.voice,
    );
    this.state.voiceStates = this.voice.states;
    this.lobbies = new Lobbies({
      http: this.http,
      state: this.state,
      events: this.events,
      logger: this.logger,
      requireSession: (operation) => this.requireSession(operation),
      rememberUser: (user, announce) => this.users.remember(user, announce),
      voice: this.voice,
    });
    this.linked = new LinkedChannels({
      http: this.http,
      state: this.state,
      logger: this.logger,
      webBase: () => this.webBase,
      opener: () => this.auth.pageOpener ?? (typeof (globalThis as { window?: unknown }).window !== 'undefined' ? popupPageOpener : undefined),
      requireSession: (operation) => this.requireSession(operation),
      isProvisional: () => this.getCurrentUserV2()?.isProvisional === true,
      applyLobby: (lobby) => this.lobbies.applyRestLobby(lobby),
    });
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

  /** The name of a `ClientStatus` value (spec `Client::StatusToString`). */
  static statusToString(status: ClientStatus): string {
    return statusToString(status);
  }

  /** The name of a `ClientError` value (spec `Client::ErrorToString`). */
  static errorToString(error: ClientError): string {
    return errorToString(error);
  }

  /** `Client::ThreadToString`: 'Client', 'Voice' or 'Network'. */
  static threadToString(thread: ClientThread): string {
    return threadToString(thread);
  }

  /** Scopes for lobbies, messages and voice (includes the presence scopes). */
  static getDefaultCommunicationScopes(): string {
    return 'openid sdk.social_layer';
  }

  /** Scopes for accounts, friends and rich presence. */
  static getDefaultPresenceScopes(): string {
    return 'openid sdk.social_layer_presence';
  }

  /** The SDK's major version (this package's package.json). */
  static getVersionMajor(): number {
    return VERSION.major;
  }

  /** The SDK's minor version. */
  static getVersionMinor(): number {
    return VERSION.minor;
  }

  /** The SDK's patch version. */
  static getVersionPatch(): number {
    return VERSION.patch;
  }

  /** The git commit the SDK was built from (src/version.ts says where it comes from); '' when unknown. */
  static getVersionHash(): string {
    return versionHash();
  }

  /** The system default audio device's ID. */
  static getDefaultAudioDeviceId(): string {
    return 'default';
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

  /**
   * Log lines of the client (not voice: addVoiceLogCallback) at `minSeverity` and above. A release
   * build (NODE_ENV=production) emits Error and Warning only; tokens are masked at every level.
   */
  addLogCallback(callback: LogCallback, minSeverity: LoggingSeverity): void {
    this.logger.add(callback, minSeverity);
  }

  /** Log lines of voice: calls, the voice gateway, transports, media, processing. */
  addVoiceLogCallback(callback: LogCallback, minSeverity: LoggingSeverity): void {
    this.voice.addVoiceLogCallback(callback, minSeverity);
  }

  /**
   * Node: writes the client's log to `<path>/social-layer.log` (overwritten; '' = the working
   * directory; `None` closes it) and returns whether the file opened. Browsers: ValidationError
   * (no file system; use addLogCallback).
   */
  setLogDir(path: string, minSeverity: LoggingSeverity): boolean {
    return this.platform.setLogDir(path, minSeverity);
  }

  /**
   * Node: the voice log to `<path>/social-layer-voice.log`, and AEC dumps into `<path>`. Call it
   * right after constructing the Client: after the first call it is ignored with a warning.
   * Browsers: ValidationError.
   */
  setVoiceLogDir(path: string, minSeverity: LoggingSeverity): void {
    this.voice.setVoiceLogDir(path, minSeverity);
  }

  /** Checked and kept; no effect: JavaScript has no settable thread priorities (logged at Info). */
  setThreadPriority(thread: ClientThread, priority: number): void {
    this.platform.setThreadPriority(thread, priority);
  }

  /** The process that owns the game window (for the desktop companion's overlay); a positive integer. */
  setGameWindowPid(pid: number): void {
    this.platform.setGameWindowPid(pid);
  }

  /** Spec shim: one listener for `statusChanged` (null removes it); `on` allows several. */
  setStatusChangedCallback(callback: ClientEvents['statusChanged'] | null): void {
    this.setCallback('statusChanged', callback);
  }
  /** Spec shim: one listener for `lobbyCreated` (null removes it). */
  setLobbyCreatedCallback(callback: ClientEvents['lobbyCreated'] | null): void {
    this.setCallback('lobbyCreated', callback);
  }
  /** Spec shim: one listener for `lobbyDeleted` (null removes it). */
  setLobbyDeletedCallback(callback: ClientEvents['lobbyDeleted'] | null): void {
    this.setCallback('lobbyDeleted', callback);
  }
  /** Spec shim: one listener for `lobbyUpdated` (null removes it). */
  setLobbyUpdatedCallback(callback: ClientEvents['lobbyUpdated'] | null): void {
    this.setCallback('lobbyUpdated', callback);
  }
  /** Spec shim: one listener for `lobbyMemberAdded` (null removes it). */
  setLobbyMemberAddedCallback(callback: ClientEvents['lobbyMemberAdded'] | null): void {
    this.setCallback('lobbyMemberAdded', callback);
  }
  /** Spec shim: one listener for `lobbyMemberRemoved` (null removes it). */
  setLobbyMemberRemovedCallback(callback: ClientEvents['lobbyMemberRemoved'] | null): void {
    this.setCallback('lobbyMemberRemoved', callback);
  }
  /** Spec shim: one listener for `lobbyMemberUpdated` (null removes it). */
  setLobbyMemberUpdatedCallback(callback: ClientEvents['lobbyMemberUpdated'] | null): void {
    this.setCallback('lobbyMemberUpdated', callback);
  }
  /** Spec shim: one listener for `messageCreated` (null removes it). */
  setMessageCreatedCallback(callback: ClientEvents['messageCreated'] | null): void {
    this.setCallback('messageCreated', callback);
  }
  /** Spec shim: one listener for `userUpdated` (null removes it). */
  setUserUpdatedCallback(callback: ClientEvents['userUpdated'] | null): void {
    this.setCallback('userUpdated', callback);
  }

  /** The native SDK has one slot per event: setting again replaces; null clears. */
  private setCallback<K extends ClientEventName>(event: K, callback: ClientEvents[K] | null): void {
    if (callback !== null && typeof callback !== 'function') throw ClientResultError.validation(`the ${event} callback must be a function or null`);
    this.callbackSlots.get(event)?.();
    this.callbackSlots.delete(event);
    if (callback) this.callbackSlots.set(event, this.events.on(event, callback));
  }

  // ---- configuration ----------------------------------------------------------------------

  /** The application (client) ID in use: the one set, else the one READY named. */
  getApplicationId(): string | undefined {
    return this.applicationId;
  }

  /** Sets the application (client) ID the client authorizes and connects for. */
  setApplicationId(applicationId: string): void {
    this.applicationId = checkSnowflake(applicationId, 'applicationId');
  }

  /** The options this client was made with, as the native value class (a copy). */
  getClientCreateOptions(): ClientCreateOptions {
    return this.createOptions.clone();
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
  getProvisionalToken(applicationId: string, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<TokenExchangeResult> {
    return this.alive(() => this.tokens.getProvisionalToken(applicationId, externalAuthType, externalAuthToken));
  }

  /**
   * Sets the token for REST calls and the Gateway. While connected nothing reconnects: the new
   * token is used from the next request and the next Identify/Resume.
   */
  updateToken(tokenType: AuthorizationTokenType, token: string): Promise<void> {
    return this.alive(async () => this.tokens.updateToken(tokenType, token));
  }

  /** True when a token is set, valid or not. */
  isAuthenticated(): boolean {
    return Boolean(this.http.token);
  }

  /** Sets the provisional account's display name (its `global_name`). */
  updateProvisionalAccountDisplayName(name: string): Promise<void> {
    return this.alive(() => this.tokens.updateProvisionalAccountDisplayName(name));
  }

  /**
   * Shows the device screen (setAuthorizeDeviceScreen) for a device flow run by the game's
   * backend: the user code and the activation link (`<webBase>/activate`). ValidationError for
   * a bad client ID or user code, or when no screen is set.
   */
  openAuthorizeDeviceScreen(clientId: string, userCode: string): void {
    this.ensureAlive();
    this.deviceScreens.open(clientId, userCode);
  }

  /** Hides the screen of openAuthorizeDeviceScreen (the closed callback fires). */
  closeAuthorizeDeviceScreen(): void {
    this.deviceScreens.close();
  }

  /** Fires once each time that screen closes, by closeAuthorizeDeviceScreen or by the player; null removes it. */
  setAuthorizeDeviceScreenClosedCallback(callback: (() => void) | null): void {
    this.deviceScreens.setClosedCallback(callback);
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

  /** Cancels an `authorize` in progress; it rejects. */
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

  /** Exchanges an authorization code (with its PKCE verifier and redirect URI) for an access and refresh token. */
  getToken(applicationId: string, code: string, codeVerifier: string, redirectUri: string): Promise<TokenExchangeResult> {
    this.ensureAlive();
    return this.auth.getToken(applicationId, code, codeVerifier, redirectUri);
  }

  /** The device flow (RFC 8628): shows a code for the player to enter elsewhere, resolves with a token once they approve. */
  getTokenFromDevice(args: DeviceAuthorizationArgs): Promise<TokenExchangeResult> {
    this.ensureAlive();
    return this.auth.getTokenFromDevice(args);
  }

  /** Cancels a `getTokenFromDevice` in progress; it rejects. */
  abortGetTokenFromDevice(): void {
    this.auth.abortGetTokenFromDevice();
  }

  /** getToken that also merges the provisional account of the external identity into the full account. */
  getTokenFromProvisionalMerge(applicationId: string, code: string, codeVerifier: string, redirectUri: string, externalAuthType: AuthenticationExternalAuthType, externalAuthToken: string): Promise<TokenExchangeResult> {
    this.ensureAlive();
    return this.auth.getTokenFromProvisionalMerge(applicationId, code, codeVerifier, redirectUri, externalAuthType, externalAuthToken);
  }

  /** The device flow, merging the provisional (guest) account named by the external token into the account that signs in. */
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

  /** Exchanges a parent application's token for a token of one of its child applications. */
  exchangeChildToken(parentApplicationToken: string, childApplicationId: string): Promise<ChildTokenResult> {
    this.ensureAlive();
    return this.auth.exchangeChildToken(parentApplicationToken, childApplicationId);
  }

  /** Splits a merged account: the external identity becomes a provisional account of its own again. */
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

  /** Removes the listener `registerAuthorizeRequestCallback` set. */
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

  /** The connection status (`ClientStatus`: Disconnected, Connecting, Connected, Ready, Reconnecting, Disconnecting, HttpWait). */
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
    await this.lobbies.load();
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
    this.unsubscribeDesktop?.();
    this.platform.close();
    this.logger.clear();
  }

  // ---- users (src/users/) -----------------------------------------------------------------

  /** The signed-in user, once READY has arrived. */
  getCurrentUserV2(): UserHandle | undefined {
    return this.users.getCurrentUserV2();
  }

  /**
   * @deprecated Use getCurrentUserV2. Kept for ports: always a handle, one whose ID is '0' and
   * whose fields read empty before READY.
   */
  getCurrentUser(): UserHandle {
    return this.users.getCurrentUser();
  }

  /** Any user the client has seen (lobby co-members, message authors, friends). */
  getUser(userId: string): UserHandle | undefined {
    return this.users.getUser(userId);
  }

  /**
   * Friends (either kind) whose username or display name is close to `searchStr` (Levenshtein,
   * case-insensitive; src/users/friendSearch.ts), best match first. Local, no request. 1-32 characters.
   */
  searchFriendsByUsername(searchStr: string): UserHandle[] {
    return this.users.searchFriendsByUsername(searchStr);
  }

  /**
   * The user signed in to the desktop companion on this machine for `applicationId`, or
   * undefined when there is none (the default: no companion module plugged in).
   */
  getDiscordClientConnectedUser(applicationId: string): Promise<UserHandle | undefined> {
    return this.users.getDiscordClientConnectedUser(applicationId);
  }

  /** IsDiscordAppInstalled: whether a desktop companion socket exists here (false without the companion module). */
  isDiscordAppInstalled(): Promise<boolean> {
    return this.users.isDiscordAppInstalled();
  }

  /** The game profiles of a user's external identities (also UserHandle.userApplicationProfiles()). */
  getUserApplicationProfiles(userId: string): UserApplicationProfileHandle[] {
    return this.users.getUserApplicationProfiles(userId);
  }

  /** The same as getUserApplicationProfiles: the client is single-threaded, so no lock is taken either way. */
  getUserApplicationProfilesNoLock(userId: string): UserApplicationProfileHandle[] {
    return this.users.getUserApplicationProfiles(userId);
  }

  // ---- lobbies (src/lobbies/) -------------------------------------------------------------

  /** Joins the lobby with this secret, creating it when none exists; resolves with the lobby ID. */
  createOrJoinLobby(secret: string): Promise<string> {
    return this.lobbies.createOrJoin(secret);
  }

  /** Later calls with the same secret overwrite the lobby's and the member's metadata. */
  createOrJoinLobbyWithMetadata(secret: string, lobbyMetadata: Metadata, memberMetadata: Metadata): Promise<string> {
    return this.lobbies.createOrJoin(secret, lobbyMetadata, memberMetadata);
  }

  /** Leaves the lobby. */
  leaveLobby(lobbyId: string): Promise<void> {
    return this.lobbies.leaveLobby(lobbyId);
  }

  /** A live view of a lobby this user is in, or undefined. */
  getLobbyHandle(lobbyId: string): LobbyHandle | undefined {
    return this.lobbies.getLobbyHandle(lobbyId);
  }

  /** The lobbies the current user is in, as last synchronised. */
  getLobbyIds(): string[] {
    return this.lobbies.getLobbyIds();
  }

  // ---- linked channels (src/lobbies/LinkedChannels.ts) -------------------------------------

  /** The guilds the user is in (GuildMinimal: id, name). */
  getUserGuilds(): Promise<GuildMinimal[]> {
    return this.alive(() => this.linked.getUserGuilds());
  }

  /** A guild's channels the user can view, by position, with isLinkable and linkedLobby. */
  getGuildChannels(guildId: string): Promise<GuildChannel[]> {
    return this.alive(() => this.linked.getGuildChannels(guildId));
  }

  /** Links a lobby to a guild text channel (needs the CanLinkLobby member flag); messages then copy both ways. */
  linkChannelToLobby(lobbyId: string, channelId: string): Promise<void> {
    return this.alive(() => this.linked.linkChannelToLobby(lobbyId, channelId));
  }

  /** Any CanLinkLobby member may unlink; no guild permission needed. */
  unlinkChannelFromLobby(lobbyId: string): Promise<void> {
    return this.alive(() => this.linked.unlinkChannelFromLobby(lobbyId));
  }

  /**
   * Invites the user to the linked channel's guild (single use, one hour) and resolves with the
   * URL (opened in the web app where a page opener exists). Provisional users: the callback asks
   * the game to merge; call provisionalUserMergeCompleted(success) to continue.
   */
  joinLinkedLobbyGuild(lobbyId: string, provisionalUserMergeRequired: ProvisionalUserMergeRequiredCallback | null): Promise<string> {
    return this.alive(() => this.linked.joinLinkedLobbyGuild(lobbyId, provisionalUserMergeRequired));
  }

  /** Resumes the action waiting on a ProvisionalUserMergeRequiredCallback (false aborts it). */
  provisionalUserMergeCompleted(success: boolean): void {
    this.linked.provisionalUserMergeCompleted(success);
  }

  /** A lobby, DM or ephemeral DM channel the client knows of. */
  getChannelHandle(channelId: string): ChannelHandle | undefined {
    return this.linked.getChannelHandle(channelId);
  }

  /** Whether the message has a copy in a linked guild channel, which openMessageInDiscord can show. */
  canOpenMessageInDiscord(messageId: string): boolean {
    return this.linked.canOpenMessageInDiscord(messageId);
  }

  /** Opens the message's copy in our web app (`/app`); provisional users are asked to merge first. */
  openMessageInDiscord(messageId: string, provisionalUserMergeRequired: ProvisionalUserMergeRequiredCallback | null): Promise<void> {
    return this.alive(() => this.linked.openMessageInDiscord(messageId, provisionalUserMergeRequired));
  }

  /** Tell the SDK whether the game's chat is on screen (call again when it hides or the game loses focus). */
  setShowingChat(showingChat: boolean): void {
    this.linked.setShowingChat(showingChat);
  }

  /** Ours: what setShowingChat last said. */
  isShowingChat(): boolean {
    return this.linked.isShowingChat();
  }

  // ---- lobby messages (src/lobbies/) ------------------------------------------------------

  /** Sends a chat message to a lobby; resolves with the message ID. */
  sendLobbyMessage(lobbyId: string, content: string): Promise<string> {
    return this.lobbies.sendLobbyMessage(lobbyId, content);
  }

  /** Sends a chat message with string metadata to a lobby; resolves with the message ID. */
  sendLobbyMessageWithMetadata(lobbyId: string, content: string, metadata: Metadata): Promise<string> {
    return this.lobbies.sendLobbyMessage(lobbyId, content, metadata);
  }

  /**
   * Lobby history over HTTP, newest first (the native header's order), at most 200 messages
   * and 72 hours; `limit <= 0` means the maximum.
   */
  getLobbyMessagesWithLimit(lobbyId: string, limit: number): Promise<MessageHandle[]> {
    return this.lobbies.getLobbyMessagesWithLimit(lobbyId, limit);
  }

  /** A message from the cache of the 25 most recent per channel (live messages only). */
  getMessageHandle(messageId: string): MessageHandle | undefined {
    return this.lobbies.getMessageHandle(messageId);
  }

  // ---- social: relationships, presence, invites, direct messages (issue 6) -------------------
  // Thin delegates; the logic lives in src/social/.

  /** Sends a platform friend request to the user with this username. */
  sendDiscordFriendRequest(username: string): Promise<void> {
    return this.social.relationships.sendDiscordFriendRequest(username);
  }
  /** Sends a platform friend request to the user with this ID. */
  sendDiscordFriendRequestById(userId: string): Promise<void> {
    return this.social.relationships.sendDiscordFriendRequestById(userId);
  }
  /** Sends a game friend request (friends within this application) to the user with this username. */
  sendGameFriendRequest(username: string): Promise<void> {
    return this.social.relationships.sendGameFriendRequest(username);
  }
  /** Sends a game friend request to the user with this ID. */
  sendGameFriendRequestById(userId: string): Promise<void> {
    return this.social.relationships.sendGameFriendRequestById(userId);
  }
  /** Accepts a platform friend request from this user. */
  acceptDiscordFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.acceptDiscordFriendRequest(userId);
  }
  /** Accepts a game friend request from this user. */
  acceptGameFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.acceptGameFriendRequest(userId);
  }
  /** Rejects a platform friend request from this user. */
  rejectDiscordFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.rejectDiscordFriendRequest(userId);
  }
  /** Rejects a game friend request from this user. */
  rejectGameFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.rejectGameFriendRequest(userId);
  }
  /** Withdraws a platform friend request sent to this user. */
  cancelDiscordFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.cancelDiscordFriendRequest(userId);
  }
  /** Withdraws a game friend request sent to this user. */
  cancelGameFriendRequest(userId: string): Promise<void> {
    return this.social.relationships.cancelGameFriendRequest(userId);
  }
  /** Ends both the platform and the game friendship with this user. */
  removeDiscordAndGameFriend(userId: string): Promise<void> {
    return this.social.relationships.removeDiscordAndGameFriend(userId);
  }
  /** Ends the game friendship with this user (a platform friendship stays). */
  removeGameFriend(userId: string): Promise<void> {
    return this.social.relationships.removeGameFriend(userId);
  }
  /** Blocks this user (the relationship becomes Blocked). */
  blockUser(userId: string): Promise<void> {
    return this.social.relationships.blockUser(userId);
  }
  /** Lifts a block on this user. */
  unblockUser(userId: string): Promise<void> {
    return this.social.relationships.unblockUser(userId);
  }
  /** Every relationship (friends, requests, blocks) as live handles. */
  getRelationships(): RelationshipHandle[] {
    return this.social.relationships.getRelationships();
  }
  /** A live view of the relationship with this user (type None when there is none). */
  getRelationshipHandle(userId: string): RelationshipHandle {
    return this.social.relationships.getRelationshipHandle(userId);
  }
  /** The relationships of one list group (online playing this game, online elsewhere, offline), sorted for display. */
  getRelationshipsByGroup(groupType: RelationshipGroupType): RelationshipHandle[] {
    return this.social.relationships.getRelationshipsByGroup(groupType);
  }
  /** Sets the player's rich presence activity, shown to friends (party, join secret, timestamps, images). */
  updateRichPresence(activity: Activity): Promise<void> {
    return this.social.presence.updateRichPresence(activity);
  }
  /** Removes the player's rich presence activity. */
  clearRichPresence(): Promise<void> {
    return this.social.presence.clearRichPresence();
  }
  /** Sets the player's online status (online, idle, do not disturb, invisible). */
  setOnlineStatus(status: StatusType): Promise<void> {
    return this.social.presence.setOnlineStatus(status);
  }
  /** Invites a friend to join the player's activity (its party), with a message. */
  sendActivityInvite(userId: string, content: string): Promise<void> {
    return this.social.invites.sendActivityInvite(userId, content);
  }
  /** Asks a friend to be let into their activity. */
  sendActivityJoinRequest(userId: string): Promise<void> {
    return this.social.invites.sendActivityJoinRequest(userId);
  }
  /** Answers a join request with an invite to the player's activity. */
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
  /** Sends a direct message to a user; resolves with the message ID. */
  sendUserMessage(recipientId: string, content: string): Promise<string> {
    return this.social.directMessages.sendUserMessage(recipientId, content);
  }
  /** Sends a direct message with string metadata to a user; resolves with the message ID. */
  sendUserMessageWithMetadata(recipientId: string, content: string, metadata: Metadata): Promise<string> {
    return this.social.directMessages.sendUserMessageWithMetadata(recipientId, content, metadata);
  }
  /** Edits a direct message this user sent. */
  editUserMessage(recipientId: string, messageId: string, content: string): Promise<void> {
    return this.social.directMessages.editUserMessage(recipientId, messageId, content);
  }
  /** Deletes a direct message this user sent. */
  deleteUserMessage(recipientId: string, messageId: string): Promise<void> {
    return this.social.directMessages.deleteUserMessage(recipientId, messageId);
  }
  /** One summary per direct-message conversation: the other user and the newest message's ID. */
  getUserMessageSummaries(): Promise<UserMessageSummary[]> {
    return this.social.directMessages.getUserMessageSummaries();
  }
  /** Direct-message history with a user over HTTP, newest first, at most `limit` messages. */
  getUserMessagesWithLimit(recipientId: string, limit: number): Promise<MessageHandle[]> {
    return this.social.directMessages.getUserMessagesWithLimit(recipientId, limit);
  }
  /** Spec shim: one listener for `relationshipCreated` (null removes it). */
  setRelationshipCreatedCallback(callback: ClientEvents['relationshipCreated'] | null): void {
    this.setCallback('relationshipCreated', callback);
  }
  /** Spec shim: one listener for `relationshipDeleted` (null removes it). */
  setRelationshipDeletedCallback(callback: ClientEvents['relationshipDeleted'] | null): void {
    this.setCallback('relationshipDeleted', callback);
  }
  /** Spec shim: one listener for `relationshipGroupsUpdated` (null removes it). */
  setRelationshipGroupsUpdatedCallback(callback: ClientEvents['relationshipGroupsUpdated'] | null): void {
    this.setCallback('relationshipGroupsUpdated', callback);
  }
  /** Spec shim: one listener for `activityInviteCreated` (null removes it). */
  setActivityInviteCreatedCallback(callback: ClientEvents['activityInviteCreated'] | null): void {
    this.setCallback('activityInviteCreated', callback);
  }
  /** Spec shim: one listener for `activityInviteUpdated` (null removes it). */
  setActivityInviteUpdatedCallback(callback: ClientEvents['activityInviteUpdated'] | null): void {
    this.setCallback('activityInviteUpdated', callback);
  }
  /** Spec shim: one listener for `messageUpdated` (null removes it). */
  setMessageUpdatedCallback(callback: ClientEvents['messageUpdated'] | null): void {
    this.setCallback('messageUpdated', callback);
  }
  /** Spec shim: one listener for `messageDeleted` (null removes it). */
  setMessageDeletedCallback(callback: ClientEvents['messageDeleted'] | null): void {
    this.setCallback('messageDeleted', callback);
  }
  /**
   * `(joinSecret)` when the player accepted an invite outside the game (the desktop companion's
   * ACTIVITY_JOIN); join with createOrJoinLobby(joinSecret). null removes it.
   */
  setActivityJoinCallback(callback: ClientEvents['activityJoin'] | null): void {
    this.setCallback('activityJoin', callback);
  }
  /** As setActivityJoinCallback, with the application the invite was for (app suites). */
  setActivityJoinWithApplicationCallback(callback: ClientEvents['activityJoinWithApplication'] | null): void {
    this.setCallback('activityJoinWithApplication', callback);
  }
  /** Stores a Steam app ID for invites to show (ActivityInvite.steamLaunchUrl); a browser cannot launch it. */
  registerLaunchSteamApplication(applicationId: string, steamAppId: number): boolean {
    return this.social.invites.registerLaunchSteamApplication(applicationId, steamAppId);
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

  /** Ends every call this client is in. */
  endCalls(): Promise<void> {
    return this.voice.endCalls();
  }

  /** The call in this lobby, or undefined. */
  getCall(lobbyId: string): Call | undefined {
    return this.voice.getCall(lobbyId);
  }

  /** Every call this client is in. */
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

  /** The microphones available for calls. */
  getInputDevices(): Promise<AudioDevice[]> {
    return this.voice.getInputDevices();
  }
  /** The audio outputs available for calls. */
  getOutputDevices(): Promise<AudioDevice[]> {
    return this.voice.getOutputDevices();
  }
  /** The microphone in use. */
  getCurrentInputDevice(): Promise<AudioDevice> {
    return this.voice.getCurrentInputDevice();
  }
  /** The audio output in use. */
  getCurrentOutputDevice(): Promise<AudioDevice> {
    return this.voice.getCurrentOutputDevice();
  }
  /** Switches every call to this microphone. */
  setInputDevice(deviceId: string): Promise<void> {
    return this.voice.setInputDevice(deviceId);
  }
  /** Plays every call on this audio output. */
  setOutputDevice(deviceId: string): Promise<void> {
    return this.voice.setOutputDevice(deviceId);
  }
  /** Called with the new device lists when a microphone or output comes or goes (null removes it). */
  setDeviceChangeCallback(callback: ((inputDevices: AudioDevice[], outputDevices: AudioDevice[]) => void) | null): void {
    this.voice.setDeviceChangeCallback(callback);
  }
  /** 0-100. */
  setInputVolume(volume: number): void {
    this.voice.setInputVolume(volume);
  }
  /** The microphone volume, 0-100. */
  getInputVolume(): number {
    return this.voice.getInputVolume();
  }
  /** 0-200. */
  setOutputVolume(volume: number): void {
    this.voice.setOutputVolume(volume);
  }
  /** The playback volume, 0-200. */
  getOutputVolume(): number {
    return this.voice.getOutputVolume();
  }
  /** Mutes (or unmutes) the player's microphone in every call. */
  setSelfMuteAll(mute: boolean): void {
    this.voice.setSelfMuteAll(mute);
  }
  /** Whether the player is muted in every call. */
  getSelfMuteAll(): boolean {
    return this.voice.getSelfMuteAll();
  }
  /** Deafens (or undeafens) the player in every call: they hear nothing. */
  setSelfDeafAll(deaf: boolean): void {
    this.voice.setSelfDeafAll(deaf);
  }
  /** Whether the player is deafened in every call. */
  getSelfDeafAll(): boolean {
    return this.voice.getSelfDeafAll();
  }

  // ---- audio processing and voice diagnostics (src/voice/VoiceManager.ts) -------------------

  /**
   * Echo cancellation of the microphone (default on). Browsers: applied to the live capture
   * track's constraints without restarting calls (resolves once applied). Node: no effect (no
   * microphone and speaker; pushed audio has no echo).
   */
  setEchoCancellation(on: boolean): Promise<void> {
    return this.voice.setEchoCancellation(on);
  }
  /** Noise suppression (browsers: default on, the browser's; Node: default off, RNNoise when on). */
  setNoiseSuppression(on: boolean): Promise<void> {
    return this.voice.setNoiseSuppression(on);
  }
  /**
   * The native Krisp switch (default off; on turns noise suppression off). Here: RNNoise in Node,
   * the browser's noise suppression in browsers (there is no Krisp for the web).
   */
  setNoiseCancellation(on: boolean): Promise<void> {
    return this.voice.setNoiseCancellation(on);
  }
  /** Automatic gain control (default on). Browsers: live on the capture track. Node: no effect. */
  setAutomaticGainControl(on: boolean): Promise<void> {
    return this.voice.setAutomaticGainControl(on);
  }
  /** -100 (the default: off) to 100 dBFS: below it for a second, the microphone counts as silent. */
  setNoAudioInputThreshold(dBFSThreshold: number): void {
    this.voice.setNoAudioInputThreshold(dBFSThreshold);
  }
  /** `(inputDetected)`: false when the microphone has delivered only silence for a second (a muted headset), true when sound is back. */
  setNoAudioInputCallback(callback: ClientEvents['noAudioInput'] | null): void {
    this.setCallback('noAudioInput', callback);
  }
  /** Platform Opus (WebCodecs) per direction, else WASM libopus; before the first call only (later: ignored, warning). */
  setOpusHardwareCoding(encode: boolean, decode: boolean): void {
    this.voice.setOpusHardwareCoding(encode, decode);
  }
  /** @deprecated As in the native SDK. No speakerphone route here: returns false. */
  setSpeakerMode(speakerMode: boolean): boolean {
    return this.voice.setSpeakerMode(speakerMode);
  }
  /** Browsers with `selectAudioOutput`: shows the output picker and returns true; else false. */
  showAudioRoutePicker(): boolean {
    return this.voice.showAudioRoutePicker();
  }
  /** Kept for ports (no mobile audio session here); before the first call only. */
  setEngineManagedAudioSession(isEngineManaged: boolean): void {
    this.voice.setEngineManagedAudioSession(isEngineManaged);
  }
  /**
   * A diagnostic recording of each call (stereo WAV: microphone left, playback right). Node:
   * files in the voice log directory; browsers: a download when it stops (setAecDump(false) or
   * the call's end).
   */
  setAecDump(on: boolean): void {
    this.voice.setAecDump(on);
  }
  /** Ours: whether an AEC dump is recording. */
  getAecDump(): boolean {
    return this.voice.getAecDump();
  }
  /** Ours: the processing switches as they stand (Node starts with noise suppression off). */
  getAudioProcessing(): AudioProcessingSettings {
    return this.voice.getAudioProcessing();
  }
  /** Ours: the no-input threshold in dBFS (-100: off). */
  getNoAudioInputThreshold(): number {
    return this.voice.getNoAudioInputThreshold();
  }

  // ---- internals --------------------------------------------------------------------------

  private ensureAlive(): void {
    if (this.state.destroyed) throw ClientResultError.destroyed();
  }

  /** Runs an async operation of a live client (ClientDestroyed otherwise), as a rejection either way. */
  private async alive<T>(operation: () => Promise<T>): Promise<T> {
    this.ensureAlive();
    return operation();
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

  private onActivityJoin(applicationId: string, joinSecret: string): void {
    if (this.state.destroyed) return;
    this.events.emit('activityJoinWithApplication', applicationId, joinSecret);
    if (!this.applicationId || applicationId === this.applicationId) this.events.emit('activityJoin', joinSecret);
  }

  private onStatusChanged(status: ClientStatus, error: ClientError, detail: number): void {
    this.auth.expiry.statusChanged(status);
    this.lobbies.onStatusChanged(status, 'before');
    if (status === ClientStatus.Disconnected) {
      this.hadReady = false;
      this.social.reset();
      this.voice.onDisconnected();
    }
    this.events.emit('statusChanged', status, error, detail);
    this.lobbies.onStatusChanged(status, 'after');
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
      case DispatchEvent.VoiceStateUpdate:
        this.voice.onVoiceStateUpdate(data as VoiceState);
        return;
      case DispatchEvent.VoiceServerUpdate:
        this.voice.onVoiceServerUpdate(data as VoiceServerUpdate);
        return;
      default:
        if (this.lobbies.onDispatch(event, data)) return;
        if (this.social.onDispatch(event, data)) return;
        this.logger.verbose(`dispatch ${event} ignored`);
    }
  }

  private onReady(ready: ReadyData): void {
    if (!this.state.lobbies) return;
    const accountChanged = this.state.selfId !== undefined && this.state.selfId !== ready.user.id;
    this.state.selfId = ready.user.id;
    this.lobbies.onReady(ready, accountChanged);
    this.users.remember(ready.user, false);
    if (ready.application?.id) this.applicationId ??= ready.application.id;
    this.hadReady = true;
    this.social.onReady(ready as ReadyData & SocialReadyData, accountChanged);
  }
}

function normalizeOptions(first: ClientOptions | ClientCreateOptions | string, second: string | undefined): ClientOptions {
  if (typeof first === 'string') {
    return { apiBase: checkBaseUrl(first, 'apiBase') || undefined, webBase: checkBaseUrl(second ?? '', 'webBase') || undefined };
  }
  if (first instanceof ClientCreateOptions) {
    const mask = first.cpuAffinityMask();
    return {
      apiBase: first.apiBase() || undefined,
      webBase: first.webBase() || undefined,
      experimentalAudioSystem: first.experimentalAudioSystem(),
      experimentalAndroidPreventCommsForBluetooth: first.experimentalAndroidPreventCommsForBluetooth(),
      ...(mask === undefined ? {} : { cpuAffinityMask: mask }),
    };
  }
  if (first === null || typeof first !== 'object') throw ClientResultError.validation('Client options must be an object, a ClientCreateOptions, or (apiBase, webBase)');
  return first;
}

/** The ClientCreateOptions view of plain options, checking the fields they share. */
function createOptionsOf(options: ClientOptions): ClientCreateOptions {
  const out = new ClientCreateOptions();
  if (options.apiBase) out.setApiBase(options.apiBase);
  if (options.webBase) out.setWebBase(options.webBase);
  if (options.experimentalAudioSystem !== undefined) out.setExperimentalAudioSystem(options.experimentalAudioSystem);
  if (options.experimentalAndroidPreventCommsForBluetooth !== undefined) out.setExperimentalAndroidPreventCommsForBluetooth(options.experimentalAndroidPreventCommsForBluetooth);
  if (options.cpuAffinityMask !== undefined) out.setCpuAffinityMask(options.cpuAffinityMask);
  return out;
}
