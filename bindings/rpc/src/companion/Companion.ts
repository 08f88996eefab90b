import { RpcCloseCode, RpcCommand, RpcErrorCode, RpcEvent } from '../codes.ts';
import { RpcCloseError, RpcError, type RpcRequest } from '../envelope.ts';
import type { ConnectionLimits, IpcConnection, RpcHandler } from '../IpcConnection.ts';
import { IpcServer } from '../IpcServer.ts';
import { activityBody, describeFieldErrors } from './activityArgs.ts';
import { authorizeInBrowser, type UrlOpener } from './authorizeFlow.ts';
import { PidWatch } from './pidWatch.ts';
import { PlayerGateway } from './PlayerGateway.ts';
import { RestApi, type RestReply } from './RestApi.ts';
import type { StoredToken } from './tokenStore.ts';

export interface CompanionOptions {
  /** The platform, e.g. http://localhost:3333. */
  serverUrl: string;
  /** The player's tokens, one per signed-in application. */
  tokens: StoredToken[];
  /** IPC name (`<name>-ipc-N`); default `social-layer`, `discord` for the public RPC clients. */
  ipcName?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Opens a URL in the player's browser (AUTHORIZE). */
  openUrl?: UrlOpener;
  /** How long AUTHORIZE waits for the player's answer (default 5 minutes). */
  authorizeTimeoutMs?: number;
  /** How often game pids are checked (default 1000 ms). */
  pidPollMs?: number;
  limits?: Partial<ConnectionLimits>;
  /** Local connections at once (default 64); more are closed with 4002. */
  maxConnections?: number;
  /** Called with every token after one was refreshed, so the caller can store them. */
  onTokensRefreshed?: (tokens: StoredToken[]) => void;
  /** Refresh a token this long before it expires (default one day). */
  refreshMarginMs?: number;
  /** One line per notable event; never given a token. */
  log?: (line: string) => void;
}

/** One signed-in application: the player's token, identity and Gateway session for it. */
interface AppSession {
  applicationId: string;
  applicationName: string;
  token: string;
  /** The stored form (refresh token, expiry), kept current for onTokensRefreshed. */
  stored: StoredToken;
  scopes: string[];
  user: any;
  gateway: PlayerGateway | undefined;
  opening: Promise<void> | undefined;
  clients: Set<IpcConnection>;
  /** Who set the player's current activity in this application, so it ends with them. */
  activityOwner: { conn: IpcConnection; pid: number } | undefined;
  /** Pending join requests (sender id -> invite id), answered by SEND_ACTIVITY_JOIN_INVITE. */
  joinRequests: Map<string, string>;
}

interface ConnState {
  /** Set by AUTHENTICATE: the game's own token and what it may do. */
  auth?: { token: string; scopes: string[] };
  subscriptions: Set<string>;
}

const NEEDS_AUTH_EVENTS = new Set<string>([RpcEvent.GuildStatus, RpcEvent.MessageCreate, RpcEvent.MessageUpdate, RpcEvent.MessageDelete, RpcEvent.RelationshipUpdate, RpcEvent.CurrentUserUpdate]);
const OPEN_EVENTS = new Set<string>([RpcEvent.ActivityJoin, RpcEvent.ActivitySpectate, RpcEvent.ActivityJoinRequest, RpcEvent.ActivityInvite]);

/**
 * The desktop companion: serves the local RPC transport for the player, acting through the
 * platform's public REST API and Gateway with the player's token for each application. A game's
 * HANDSHAKE opens (or shares) the player's Gateway session in that application; presence set
 * with SET_ACTIVITY reaches friends through the platform's presence service, and ends when the
 * game's process exits or its last connection closes.
 */
export class Companion implements RpcHandler {
  private readonly rest: RestApi;
  private readonly apps = new Map<string, AppSession>();
  private readonly ipc: IpcServer;
  private readonly pids: PidWatch;
  private gatewayUrl: string | undefined;
  private readonly log: (line: string) => void;
  private refreshTimer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: CompanionOptions) {
    this.rest = new RestApi(options.serverUrl);
    this.log = options.log ?? (() => {});
    this.ipc = new IpcServer({ handler: this, name: options.ipcName, env: options.env, platform: options.platform, limits: options.limits, maxConnections: options.maxConnections });
    this.pids = new PidWatch((pid) => this.onPidExit(pid), options.pidPollMs ?? 1000);
  }

  get socketPath(): string | undefined {
    return this.ipc.path;
  }

  /** Applications the companion is signed in to, with the player's user. */
  get signedIn(): { applicationId: string; applicationName: string; user: any }[] {
    return [...this.apps.values()].map((a) => ({ applicationId: a.applicationId, applicationName: a.applicationName, user: a.user }));
  }

  /** Checks every token with the platform, then listens; resolves with the socket path. */
  async start(): Promise<string> {
    let refreshed = false;
    for (const [i, given] of this.options.tokens.entries()) {
      const t = { ...given };
      // A token due for refresh is refreshed before use (its application is known from sign-in).
      if (t.application_id && this.refreshDue(t)) refreshed = (await this.refresh(t).then(() => true, () => false)) || refreshed;
      const me = await this.rest.request('GET', '/oauth2/@me', t.access_token);
      if (me.status !== 200 || !me.body?.application?.id) throw new Error(`Token ${i + 1} was refused by the server (HTTP ${me.status}); sign in again`);
      const id = String(me.body.application.id);
      this.apps.set(id, {
        applicationId: id,
        applicationName: String(me.body.application.name ?? ''),
        token: t.access_token,
        stored: { ...t, application_id: id },
        scopes: Array.isArray(me.body.scopes) ? me.body.scopes : [],
        user: me.body.user ?? (await this.rest.request('GET', '/users/@me', t.access_token)).body,
        gateway: undefined,
        opening: undefined,
        clients: new Set(),
        activityOwner: undefined,
        joinRequests: new Map(),
      });
    }
    if (this.apps.size === 0) throw new Error('No signed-in application');
    if (refreshed) this.options.onTokensRefreshed?.(this.storedTokens());
    this.refreshTimer = setInterval(() => void this.refreshAll(), 60 * 60_000);
    this.refreshTimer.unref?.();
    const path = await this.ipc.listen();
    this.log(`listening on ${path} for ${[...this.apps.values()].map((a) => `${a.applicationName} (${a.applicationId})`).join(', ')}`);
    return path;
  }

  /** Removes our socket file now, synchronously (for process exit, when nothing async runs). */
  removeSocket(): void {
    this.ipc.removeSocketFile();
  }

  async stop(): Promise<void> {
    clearInterval(this.refreshTimer);
    this.pids.stop();
    await this.ipc.close();
    for (const app of this.apps.values()) {
      if (app.activityOwner) await this.clearActivity(app).catch(() => {});
      await app.gateway?.stop();
      app.gateway = undefined;
    }
  }

  // ---- RpcHandler ---------------------------------------------------------------------------

  async handshake(conn: IpcConnection, clientId: string): Promise<unknown> {
    const app = this.apps.get(clientId);
    // An application the player has not signed in to here is unknown to this companion.
    if (!app) throw new RpcCloseError(RpcCloseCode.InvalidClientId, 'Invalid Client ID');
    conn.meta.set('state', { subscriptions: new Set() } satisfies ConnState);
    app.clients.add(conn);
    try {
      await this.ensureGateway(app);
    } catch {
      app.clients.delete(conn);
      throw new RpcCloseError(RpcCloseCode.TokenRevoked, 'The player session for this application could not be opened');
    }
    this.log(`client ${conn.id} connected for ${app.applicationName} (${app.applicationId})`);
    const url = new URL(this.options.serverUrl);
    return {
      v: 1,
      config: { cdn_host: url.host, api_endpoint: `//${url.host}/api`, environment: 'production' },
      user: publicUser(app.user),
    };
  }

  closed(conn: IpcConnection): void {
    const app = conn.clientId ? this.apps.get(conn.clientId) : undefined;
    if (!app || !app.clients.delete(conn)) return;
    this.log(`client ${conn.id} disconnected (${app.applicationId})`);
    void this.afterClientLeft(app, conn);
  }

  async command(conn: IpcConnection, req: RpcRequest): Promise<unknown> {
    const app = this.apps.get(conn.clientId!)!;
    const state = conn.meta.get('state') as ConnState;
    switch (req.cmd) {
      case RpcCommand.Authenticate:
        return this.authenticate(app, state, req.args);
      case RpcCommand.Authorize:
        return this.authorize(conn, req.args);
      case RpcCommand.SetActivity:
        return this.setActivity(app, conn, req.args);
      case RpcCommand.SendActivityJoinInvite:
        return this.sendJoinInvite(app, req.args);
      case RpcCommand.CloseActivityJoinRequest:
      case RpcCommand.CloseActivityRequest:
        app.joinRequests.delete(userIdArg(req.args));
        return null;
      case RpcCommand.GetGuilds: {
        const r = await this.api(state, 'GET', '/users/@me/guilds');
        return { guilds: (Array.isArray(r) ? r : []).map((g: any) => guildSummary(g, this.options.serverUrl)) };
      }
      case RpcCommand.GetGuild: {
        const guild = await this.guild(state, req.args.guild_id);
        return { ...guildSummary(guild, this.options.serverUrl), members: [] };
      }
      case RpcCommand.GetChannels: {
        const guild = await this.guild(state, req.args.guild_id);
        const channels = await this.api(state, 'GET', `/guilds/${guild.id}/channels`);
        return { channels: (Array.isArray(channels) ? channels : []).map((c: any) => ({ id: c.id, name: c.name, type: c.type })) };
      }
      case RpcCommand.GetChannel:
        return channelDetail(await this.channel(state, req.args.channel_id));
      case RpcCommand.Subscribe:
        return this.subscribe(app, conn, state, req, true);
      case RpcCommand.Unsubscribe:
        return this.subscribe(app, conn, state, req, false);
      default:
        throw new RpcError(RpcErrorCode.InvalidCommand, `Invalid command: ${req.cmd.replace(/[^A-Z0-9_]/gi, '?')}`);
    }
  }

  // ---- commands -----------------------------------------------------------------------------

  private async authenticate(app: AppSession, state: ConnState, args: Record<string, unknown>): Promise<unknown> {
    const token = args.access_token;
    if (typeof token !== 'string' || token.length === 0 || token.length > 512) throw new RpcError(RpcErrorCode.InvalidToken, 'Invalid access token');
    const me = await this.rest.request('GET', '/oauth2/@me', token);
    if (me.status !== 200 || String(me.body?.application?.id) !== app.applicationId) throw new RpcError(RpcErrorCode.InvalidToken, 'Invalid access token');
    if (me.body.user && me.body.user.id !== app.user.id) throw new RpcError(RpcErrorCode.InvalidUser, 'The token belongs to another user than the signed-in player');
    state.auth = { token, scopes: me.body.scopes ?? [] };
    return {
      user: publicUser(me.body.user ?? app.user),
      scopes: me.body.scopes ?? [],
      expires: me.body.expires,
      application: { id: app.applicationId, name: app.applicationName, description: '', icon: null, rpc_origins: [] },
    };
  }

  private async authorize(conn: IpcConnection, args: Record<string, unknown>): Promise<unknown> {
    const clientId = args.client_id === undefined ? conn.clientId : String(args.client_id);
    if (clientId !== conn.clientId) throw new RpcError(RpcErrorCode.InvalidClientId, 'client_id must be the application of this connection');
    const scopes = args.scopes;
    if (!Array.isArray(scopes) || scopes.length === 0 || scopes.some((s) => typeof s !== 'string' || !/^[a-z0-9._]{1,64}$/.test(s))) {
      throw new RpcError(RpcErrorCode.InvalidPayload, 'scopes must be a list of scope names');
    }
    if (!this.options.openUrl) throw new RpcError(RpcErrorCode.OAuth2Error, 'This companion cannot open a browser');
    const result = await authorizeInBrowser({
      serverUrl: this.options.serverUrl,
      clientId: conn.clientId!,
      scopes: scopes as string[],
      prompt: args.prompt === 'none' ? 'none' : undefined,
      openUrl: this.options.openUrl,
      timeoutMs: this.options.authorizeTimeoutMs ?? 5 * 60_000,
      cancelled: () => !conn.isOpen,
    });
    if ('error' in result) throw new RpcError(RpcErrorCode.OAuth2Error, result.error);
    return { code: result.code, redirect_uri: result.redirectUri };
  }

  private async setActivity(app: AppSession, conn: IpcConnection, args: Record<string, unknown>): Promise<unknown> {
    const pid = args.pid;
    if (pid !== undefined && (typeof pid !== 'number' || !Number.isInteger(pid) || pid < 0 || pid > 0x7fffffff)) {
      throw new RpcError(RpcErrorCode.InvalidPayload, 'pid must be a process id');
    }
    if (args.activity === undefined || args.activity === null) {
      await this.clearActivity(app);
      return null;
    }
    const body = activityBody(args.activity);
    const r = await this.rest.request('PUT', '/users/@me/activities', app.token, body);
    if (r.status === 400) throw new RpcError(RpcErrorCode.InvalidPayload, describeFieldErrors(r.body));
    if (r.status !== 200) throw this.restError(r);
    const previous = app.activityOwner;
    app.activityOwner = { conn, pid: typeof pid === 'number' && pid > 0 ? pid : 0 };
    if (previous?.pid && previous.pid !== app.activityOwner.pid) this.unwatchIfUnused(previous.pid);
    if (app.activityOwner.pid) this.pids.watch(app.activityOwner.pid);
    this.log(`activity set for ${app.applicationId} by client ${conn.id}${app.activityOwner.pid ? ` (pid ${app.activityOwner.pid})` : ''}`);
    return { ...r.body, secrets: undefined };
  }

  private async sendJoinInvite(app: AppSession, args: Record<string, unknown>): Promise<unknown> {
    const userId = userIdArg(args);
    const inviteId = app.joinRequests.get(userId);
    if (!inviteId) throw new RpcError(RpcErrorCode.InvalidUser, 'No pending join request from that user');
    const r = await this.rest.request('POST', `/users/@me/activity-invites/${inviteId}/reply`, app.token, {});
    if (r.status !== 200 && r.status !== 204) throw this.restError(r);
    app.joinRequests.delete(userId);
    return null;
  }

  private async subscribe(app: AppSession, conn: IpcConnection, state: ConnState, req: RpcRequest, on: boolean): Promise<unknown> {
    const evt = req.evt;
    if (!evt || (!NEEDS_AUTH_EVENTS.has(evt) && !OPEN_EVENTS.has(evt))) throw new RpcError(RpcErrorCode.InvalidEvent, 'Invalid event');
    if (NEEDS_AUTH_EVENTS.has(evt) && !state.auth) throw new RpcError(RpcErrorCode.InvalidPermissions, 'Not authenticated or invalid scope');
    let key: string = evt;
    let guild: any;
    if (evt === RpcEvent.GuildStatus) {
      guild = await this.guild(state, req.args.guild_id);
      key = `${evt}:${guild.id}`;
    } else if (evt.startsWith('MESSAGE_')) {
      const channel = await this.channel(state, req.args.channel_id);
      key = `${evt}:${channel.id}`;
    }
    if (on) state.subscriptions.add(key);
    else state.subscriptions.delete(key);
    if (on && guild) {
      // The current status right after the answer, as the desktop client does.
      // A little later than the answer: discord-rpc 4 drops a frame that shares a read with another.
      setTimeout(() => conn.dispatch(RpcEvent.GuildStatus, { guild: guildSummary(guild, this.options.serverUrl), online: 0 }), 50);
    }
    void app;
    return { evt };
  }

  // ---- platform -----------------------------------------------------------------------------

  private async ensureGateway(app: AppSession): Promise<void> {
    if (app.gateway?.ready) return;
    if (!app.opening) {
      app.opening = (async () => {
        this.gatewayUrl ??= (await this.rest.request('GET', '/gateway', undefined)).body?.url;
        if (!this.gatewayUrl) throw new Error('no gateway url');
        const gateway = new PlayerGateway({
          url: this.gatewayUrl,
          token: () => app.token,
          onDispatch: (event, data) => this.onGatewayDispatch(app, event, data),
          onFatal: (code) => {
            this.log(`the player session for ${app.applicationId} ended (${code})`);
            app.gateway = undefined;
            for (const c of app.clients) c.close(RpcCloseCode.TokenRevoked, 'Token revoked');
          },
        });
        app.gateway = gateway;
        await gateway.start();
      })().finally(() => {
        app.opening = undefined;
      });
    }
    await app.opening;
  }

  private onGatewayDispatch(app: AppSession, event: string, data: any): void {
    const send = (key: string, evt: string, payload: unknown) => {
      for (const c of app.clients) {
        const st = c.meta.get('state') as ConnState | undefined;
        if (st?.subscriptions.has(key)) c.dispatch(evt, payload);
      }
    };
    switch (event) {
      case 'READY':
        if (data?.user) app.user = { ...app.user, ...data.user };
        return;
      case 'USER_UPDATE':
        app.user = { ...app.user, ...data };
        return send(RpcEvent.CurrentUserUpdate, RpcEvent.CurrentUserUpdate, publicUser(app.user));
      case 'RELATIONSHIP_ADD':
      case 'RELATIONSHIP_UPDATE':
        return send(RpcEvent.RelationshipUpdate, RpcEvent.RelationshipUpdate, { type: data?.type, user: data?.user, presence: data?.presence });
      case 'RELATIONSHIP_REMOVE':
        return send(RpcEvent.RelationshipUpdate, RpcEvent.RelationshipUpdate, { type: 0, user: data?.user ?? { id: data?.id } });
      case 'ACTIVITY_INVITE_CREATE':
        if (data?.recipient_id !== app.user.id) return;
        if (data.type === 5) {
          app.joinRequests.set(String(data.sender_id), String(data.id));
          return send(RpcEvent.ActivityJoinRequest, RpcEvent.ActivityJoinRequest, { user: data.sender });
        }
        return send(RpcEvent.ActivityInvite, RpcEvent.ActivityInvite, { user: data.sender, type: data.type, channel_id: data.channel_id, message_id: data.id, activity: { party: { id: data.party_id } } });
      case 'MESSAGE_CREATE':
      case 'MESSAGE_UPDATE':
      case 'MESSAGE_DELETE':
        if (data?.channel_id) send(`${event}:${data.channel_id}`, event, { channel_id: data.channel_id, message: event === 'MESSAGE_DELETE' ? { id: data.id } : data });
        return;
      case 'GUILD_UPDATE':
        if (data?.id) send(`${RpcEvent.GuildStatus}:${data.id}`, RpcEvent.GuildStatus, { guild: guildSummary(data, this.options.serverUrl), online: 0 });
        return;
    }
  }

  /** REST with the token the connection authenticated with (guild and channel reads act as the game). */
  private async api(state: ConnState, method: string, path: string): Promise<any> {
    if (!state.auth) throw new RpcError(RpcErrorCode.InvalidPermissions, 'Not authenticated or invalid scope');
    const r = await this.rest.request(method, path, state.auth.token);
    if (r.status === 200) return r.body;
    throw this.restError(r);
  }

  private async guild(state: ConnState, id: unknown): Promise<any> {
    if (!state.auth) throw new RpcError(RpcErrorCode.InvalidPermissions, 'Not authenticated or invalid scope');
    if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) throw new RpcError(RpcErrorCode.InvalidGuild, 'Invalid guild id');
    const r = await this.rest.request('GET', `/guilds/${id}`, state.auth.token);
    if (missingScope(r)) throw new RpcError(RpcErrorCode.InvalidPermissions, 'The game was not granted the rpc scope');
    if (r.status === 404 || r.status === 403) throw new RpcError(RpcErrorCode.InvalidGuild, 'Invalid guild id');
    if (r.status !== 200) throw this.restError(r);
    return r.body;
  }

  private async channel(state: ConnState, id: unknown): Promise<any> {
    if (!state.auth) throw new RpcError(RpcErrorCode.InvalidPermissions, 'Not authenticated or invalid scope');
    if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) throw new RpcError(RpcErrorCode.InvalidChannel, 'Invalid channel id');
    const r = await this.rest.request('GET', `/channels/${id}`, state.auth.token);
    if (missingScope(r)) throw new RpcError(RpcErrorCode.InvalidPermissions, 'The game was not granted the rpc scope');
    // Only channels of the player's guilds: DMs and lobbies are not served here.
    if (r.status === 404 || r.status === 403 || (r.status === 200 && !r.body?.guild_id)) throw new RpcError(RpcErrorCode.InvalidChannel, 'Invalid channel id');
    if (r.status !== 200) throw this.restError(r);
    return r.body;
  }

  private restError(r: RestReply): RpcError {
    if (r.status === 401) return new RpcError(RpcErrorCode.InvalidToken, 'The platform refused the token');
    if (r.status === 403) return new RpcError(RpcErrorCode.InvalidPermissions, 'Missing permissions or scope');
    if (r.status === 429) return new RpcError(RpcErrorCode.UnknownError, 'Rate limited by the platform; retry later');
    return new RpcError(RpcErrorCode.UnknownError, `The platform answered HTTP ${r.status}`);
  }

  // ---- token refresh ------------------------------------------------------------------------

  private refreshDue(t: StoredToken): boolean {
    return !!t.refresh_token && t.expires_at !== undefined && t.expires_at - Date.now() < (this.options.refreshMarginMs ?? 24 * 60 * 60_000);
  }

  /** The refresh grant (public client: client_id only); updates `t` in place. */
  private async refresh(t: StoredToken): Promise<void> {
    const r = await this.rest.request('POST', '/oauth2/token', undefined, undefined, { grant_type: 'refresh_token', client_id: t.application_id!, refresh_token: t.refresh_token! });
    if (r.status !== 200 || typeof r.body?.access_token !== 'string') throw new Error(`refresh refused (HTTP ${r.status})`);
    t.access_token = r.body.access_token;
    if (typeof r.body.refresh_token === 'string') t.refresh_token = r.body.refresh_token;
    if (typeof r.body.expires_in === 'number') t.expires_at = Date.now() + r.body.expires_in * 1000;
    this.log(`refreshed the token of ${t.application_id}`);
  }

  private async refreshAll(): Promise<void> {
    for (const app of this.apps.values()) {
      if (!this.refreshDue(app.stored)) continue;
      try {
        await this.refresh(app.stored);
        app.token = app.stored.access_token;
        this.options.onTokensRefreshed?.(this.storedTokens());
      } catch {
        this.log(`could not refresh the token of ${app.applicationId}; sign in again when it expires`);
      }
    }
  }

  /** The tokens as they should be stored now. */
  storedTokens(): StoredToken[] {
    return this.apps.size > 0 ? [...this.apps.values()].map((a) => ({ ...a.stored })) : this.options.tokens.map((t) => ({ ...t }));
  }

  // ---- presence lifetime --------------------------------------------------------------------

  private async clearActivity(app: AppSession): Promise<void> {
    const owner = app.activityOwner;
    app.activityOwner = undefined;
    if (owner?.pid) this.unwatchIfUnused(owner.pid);
    const r = await this.rest.request('DELETE', '/users/@me/activities', app.token);
    if (r.status !== 204 && r.status !== 200) throw this.restError(r);
  }

  private unwatchIfUnused(pid: number): void {
    for (const a of this.apps.values()) if (a.activityOwner?.pid === pid) return;
    this.pids.unwatch(pid);
  }

  private onPidExit(pid: number): void {
    for (const app of this.apps.values()) {
      if (app.activityOwner?.pid !== pid) continue;
      this.log(`game process ${pid} exited: clearing the activity of ${app.applicationId}`);
      this.clearActivity(app).catch(() => this.log(`could not clear the activity of ${app.applicationId}`));
    }
  }

  private async afterClientLeft(app: AppSession, conn: IpcConnection): Promise<void> {
    try {
      if (app.activityOwner?.conn === conn) await this.clearActivity(app);
    } catch {
      this.log(`could not clear the activity of ${app.applicationId}`);
    }
    // The last game of this application left: the player leaves it too.
    if (app.clients.size === 0 && !app.opening && app.gateway) {
      const gateway = app.gateway;
      app.gateway = undefined;
      await gateway.stop();
    }
  }
}

function userIdArg(args: Record<string, unknown>): string {
  const id = args.user_id;
  if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) throw new RpcError(RpcErrorCode.InvalidUser, 'Invalid user id');
  return id;
}

/** The user fields the public RPC READY carries. */
function publicUser(u: any): unknown {
  if (!u) return null;
  return {
    id: u.id,
    username: u.username,
    discriminator: u.discriminator ?? '0',
    global_name: u.global_name ?? null,
    avatar: u.avatar ?? null,
    bot: u.bot ?? false,
    flags: u.public_flags ?? u.flags ?? 0,
    premium_type: u.premium_type ?? 0,
  };
}

function guildSummary(g: any, serverUrl: string): { id: string; name: string; icon_url: string | null } {
  const icon = g?.icon ? `${serverUrl.replace(/\/+$/, '')}/icons/${g.id}/${g.icon}.png` : null;
  return { id: String(g?.id), name: String(g?.name ?? ''), icon_url: icon };
}

function channelDetail(c: any): unknown {
  return {
    id: c.id,
    guild_id: c.guild_id ?? null,
    name: c.name ?? '',
    type: c.type,
    topic: c.topic ?? '',
    bitrate: c.bitrate ?? 0,
    user_limit: c.user_limit ?? 0,
    position: c.position ?? 0,
    voice_states: [],
    messages: [],
  };
}

/** The platform's refusal for a scope the token lacks (403 50026): the game's grant, not the guild. */
function missingScope(r: RestReply): boolean {
  return r.status === 403 && (r.body as { code?: unknown } | undefined)?.code === 50026;
}
