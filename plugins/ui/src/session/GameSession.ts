import { Client, ClientStatus, type ClientOptions, type MessageHandle } from '@social-layer/client';
import type { LobbyChatPanel } from '../LobbyChatPanel.ts';
import type { LobbyOverlay, PageRect } from '../LobbyOverlay.ts';
import type { SafeArea } from '../overlayLayout.ts';
import type { MemberListOptions, ShowFriendsOptions, ShowLobbyOptions } from '../types.ts';
import { GameStorage } from './GameStorage.ts';
import { LatestOnly } from './LatestOnly.ts';
import { keepPresenceInStep, type LobbyPresenceOptions } from './LobbyPresence.ts';
import { launchUrl, lobbySecretFromUrl, lobbyUrl } from './lobbyLink.ts';
import { PlayerBar } from './PlayerBar.ts';
import { generateGuestName } from './random.ts';
import { hasFullAccount, isAuthorizeReturn, linkAccount, signIn } from './signIn.ts';
import { VoiceChat } from './VoiceChat.ts';

/** Lobby member metadata: string keys to string values, as on the wire. */
export type MemberState = Record<string, string>;

/** What the server tells a hosted game (`/games/config.json`), or what a game is built with. */
export interface GameConfig {
  /** The application (client) ID the game signs in with. */
  applicationId: string;
  /** Origin of the Social Layer API. Default: this page's origin. */
  apiBase?: string;
}

/** Options of `GameSession.start`. */
export interface GameSessionOptions {
  /** Names this game's keys in localStorage (`socialLayer.<game>.*`): letters, digits, _ and -. */
  game: string;
  /** The config, or the URL to fetch it from. Default '/games/config.json'. */
  config?: GameConfig | string;
  /** More Client options (queueEvents for engines that pump callbacks once a frame, voice...). */
  client?: Omit<ClientOptions, 'apiBase' | 'applicationId'>;
  /** Where the player bar goes (status, name, invite link, sign-in, voice); none: no bar. */
  bar?: HTMLElement;
  /** The member metadata to join with when this device has none saved for the lobby. */
  initialState?: (storage: GameStorage) => MemberState;
  /** Rich presence kept in step with the lobby, or false for none. */
  presence?: LobbyPresenceOptions | false;
  /** The push-to-talk key (`KeyboardEvent.code`). Default 'KeyV'. */
  pushToTalkKey?: string;
}

/** A lobby member as the game draws it. */
export interface SessionMember {
  /** The member's user ID. */
  id: string;
  /** Display name, else username, else 'Player'. */
  name: string;
  /** Whether they have a live connection now. */
  connected: boolean;
  /** Whether this is the player. */
  self: boolean;
  /** Their member metadata; for this player, the newest state set (not the server's echo). */
  state: MemberState;
}

/** How a game draws lobby members (`trackMembers`). */
export interface MemberView<T> {
  /** Makes the game object of a member who appeared. */
  create(member: SessionMember): T;
  /** Brings a member's game object up to date (their state or connection changed). */
  update(item: T, member: SessionMember): void;
  /** Removes the game object of a member who left. */
  destroy(item: T): void;
  /** After each pass over the members (refresh a list, ask for a frame). */
  synced?(): void;
}

/** The live result of `trackMembers`: the game objects by member ID. */
export interface MemberTracker<T> {
  /** The game object of each member, by user ID. */
  readonly items: ReadonlyMap<string, T>;
  /** Runs a pass now. */
  sync(): void;
  /** Stops following the lobby and destroys every item. */
  stop(): void;
}

/** What `showPanels` drives: an engine plugin's panel host (Phaser, Babylon.js, PlayCanvas). */
export interface PanelHost {
  /** Shows the chat and member list of a lobby. */
  showLobby(lobbyId: string, options?: ShowLobbyOptions): unknown;
  /** Shows the friends panel and the invite toasts. */
  showFriends(options?: ShowFriendsOptions): unknown;
  /** The lobby chat panel, while one is shown. */
  readonly chat: LobbyChatPanel | undefined;
  /** The overlay holding the panels (the three engine plugins have one). */
  readonly overlay?: LobbyOverlay | undefined;
}

/** Options of `showPanels`. */
export interface ShowPanelsOptions {
  /** Member list options (a swatch color per member, say). */
  members?: MemberListOptions;
  /** Friends panel and invite toast options. */
  friends?: ShowFriendsOptions;
  /**
   * Where the game draws a member now, as a rectangle of the page (client coordinates): their
   * avatar with its name tag. With it, panels never cover a player who is speaking: a panel over
   * one folds or steps aside until they stop (`LobbyOverlay.keepClear`).
   */
  locate?: (memberId: string) => PageRect | undefined;
}

/** How often a speaking player's rectangle is looked up again (avatars walk while they talk). */
const LOCATE_MS = 250;

const LOBBY_EVENTS = ['lobbyUpdated', 'lobbyMemberAdded', 'lobbyMemberUpdated', 'lobbyMemberRemoved'] as const;
const HISTORY_LIMIT = 50;

/**
 * The quick start: one `await GameSession.start({ game })` gives a game a connected player (the
 * full account signed in on this device, else this device's guest), the lobby named in the URL
 * or a new one (deep links `?invite=` and `?join=` included, the address bar kept as the invite
 * link), rich presence that makes the player invitable, voice with push-to-talk, and this
 * player's member state shared latest-only and kept on the device, so a reload puts the player
 * back as they were. The game keeps its engine and its drawing; everything social is here.
 */
export class GameSession {
  /** The connected Social Layer client (Ready). */
  readonly client: Client;
  /** Which application and server the game uses. */
  readonly config: GameConfig;
  /** This game's namespace in localStorage. */
  readonly storage: GameStorage;
  /** The lobby the player is in. */
  readonly lobbyId: string;
  /** The lobby's secret: what `?lobby=` in the invite link carries. */
  readonly secret: string;
  /** The player's user ID. */
  readonly userId: string;
  /** The lobby's voice chat (join, leave, push-to-talk, who is speaking). */
  readonly voice: VoiceChat;
  /** The player bar, when the options named a place for it. */
  readonly bar: PlayerBar | undefined;
  #state: MemberState;
  readonly #publish: LatestOnly<MemberState>;
  readonly #off: (() => void)[] = [];
  #panels: PanelHost | undefined;
  #destroyed = false;

  private constructor(init: { client: Client; config: GameConfig; storage: GameStorage; lobbyId: string; secret: string; userId: string; state: MemberState; bar: PlayerBar | undefined; options: GameSessionOptions }) {
    this.client = init.client;
    this.config = init.config;
    this.storage = init.storage;
    this.lobbyId = init.lobbyId;
    this.secret = init.secret;
    this.userId = init.userId;
    this.bar = init.bar;
    this.#state = init.state;
    this.voice = new VoiceChat(this.client, this.lobbyId, { pushToTalkKey: init.options.pushToTalkKey });
    // Member metadata is replaced as a whole: createOrJoinLobbyWithMetadata on a lobby we are
    // already in updates our metadata and fans it out to the other members.
    this.#publish = new LatestOnly(
      (state) => this.client.createOrJoinLobbyWithMetadata(this.secret, {}, state),
      (error) => console.warn('Could not share the player state', error),
    );
    if (init.options.presence !== false) this.#off.push(keepPresenceInStep(this.client, this.lobbyId, this.secret, init.options.presence ?? {}));
  }

  /** Signs in, connects and joins the lobby; rejects (and says why in the bar) on failure. */
  static async start(options: GameSessionOptions): Promise<GameSession> {
    const bar = options.bar ? new PlayerBar(options.bar, { pushToTalkKey: options.pushToTalkKey }) : undefined;
    try {
      if (isAuthorizeReturn()) {
        bar?.setStatus('Signed in. Returning to the game…');
        return await new Promise<never>(() => {}); // The opener reads this URL and closes the window.
      }
      const session = await GameSession.#start(options, bar);
      bar?.attach(session);
      return session;
    } catch (error) {
      bar?.setStatus(`Could not join: ${error instanceof Error ? error.message : String(error)}`, true);
      throw error;
    }
  }

  static async #start(options: GameSessionOptions, bar: PlayerBar | undefined): Promise<GameSession> {
    const onStep = (text: string) => bar?.setStatus(text);
    const config = typeof options.config === 'object' ? options.config : await loadConfig(options.config);
    const storage = new GameStorage(options.game);
    const client = new Client({ ...options.client, apiBase: config.apiBase ?? location.origin, applicationId: config.applicationId });

    onStep('Signing in…');
    await signIn(client, config.applicationId, storage);
    onStep('Connecting…');
    await client.connect();
    const me = client.getCurrentUserV2();
    if (!me) throw new Error('Connected, but the client has no current user');
    if (me.isProvisional) {
      const name = storage.getOrCreate('displayName', generateGuestName);
      if (me.displayName !== name) await client.updateProvisionalAccountDisplayName(name);
    }

    onStep('Joining the lobby…');
    // Invites sent from here link back to this page (the web meaning of RegisterLaunchCommand).
    client.registerLaunchCommand(config.applicationId, launchUrl());
    const secret = await lobbySecretFromUrl(client);
    // Saved before joining: a player who never moves is still put back as they were.
    const state = storage.getRecord(`state.${secret}`) ?? options.initialState?.(storage) ?? {};
    storage.setRecord(`state.${secret}`, state);
    const lobbyId = await client.createOrJoinLobbyWithMetadata(secret, {}, state);
    onStep('');
    return new GameSession({ client, config, storage, lobbyId, secret, userId: me.id, state, bar, options });
  }

  /** This player's member state, as last set. */
  get state(): MemberState {
    return { ...this.#state };
  }

  /** Whether the player is signed in with a full account (not a guest). */
  get signedIn(): boolean {
    return this.client.getCurrentUserV2()?.isProvisional === false;
  }

  /**
   * Shares this player's new member state with the lobby (the newest only, one update in
   * flight at a time) and keeps it on the device for the next start.
   */
  setState(state: MemberState): void {
    this.#state = { ...state };
    this.storage.setRecord(`state.${this.secret}`, this.#state);
    this.#publish.push(this.#state);
  }

  /** Settles when every state set so far has reached the server (or failed). */
  stateSent(): Promise<void> {
    return this.#publish.idle();
  }

  /** The lobby's members as the client knows them now, this player included. */
  members(): SessionMember[] {
    const lobby = this.client.getLobbyHandle(this.lobbyId);
    return (lobby?.lobbyMembers() ?? []).map((member) => {
      const self = member.id === this.userId;
      const user = member.user();
      return {
        id: member.id,
        name: user?.displayName || user?.username || 'Player',
        connected: member.connected(),
        self,
        state: self ? { ...this.#state } : { ...(member.metadata() ?? {}) },
      };
    });
  }

  /** One member's state (this player's: the newest set), or undefined. */
  memberState(memberId: string): MemberState | undefined {
    if (memberId === this.userId) return this.state;
    const metadata = this.client.getLobbyHandle(this.lobbyId)?.getLobbyMemberHandle(memberId)?.metadata();
    return metadata ? { ...metadata } : undefined;
  }

  /** Called whenever `members()` may read differently: joins, leaves, state, names, presence. */
  onMembersChanged(listener: () => void): () => void {
    const onLobby = (lobbyId: string) => {
      if (lobbyId === this.lobbyId) listener();
    };
    const offs = [...LOBBY_EVENTS.map((event) => this.client.on(event, onLobby)), this.client.on('userUpdated', () => listener())];
    return () => offs.forEach((off) => off());
  }

  /**
   * Keeps one game object per lobby member (an avatar, a name tag) in step with the lobby:
   * `create` for a member who appears, `update` on every change (and right after create),
   * `destroy` for one who leaves and for all on `stop()`. Redraws right away.
   */
  trackMembers<T>(view: MemberView<T>): MemberTracker<T> {
    const items = new Map<string, T>();
    const sync = () => {
      const seen = new Set<string>();
      for (const member of this.members()) {
        seen.add(member.id);
        let item = items.get(member.id);
        if (item === undefined) items.set(member.id, (item = view.create(member)));
        view.update(item, member);
      }
      for (const [id, item] of items) {
        if (seen.has(id)) continue;
        items.delete(id);
        view.destroy(item);
      }
      view.synced?.();
    };
    const off = this.onMembersChanged(sync);
    sync();
    return {
      items,
      sync,
      stop: () => {
        off();
        for (const item of items.values()) view.destroy(item);
        items.clear();
      },
    };
  }

  /**
   * Fills an engine plugin's overlay: the lobby's chat (with its last 50 messages) and member
   * list, the friends panel, and invite toasts whose Accept takes the player to that lobby.
   */
  showPanels(host: PanelHost, options: ShowPanelsOptions = {}): void {
    this.#panels = host;
    host.showLobby(this.lobbyId, { members: options.members ?? {} });
    host.showFriends({ ...options.friends, toasts: { onJoin: (secret) => this.goToLobby(secret), ...(options.friends?.toasts || {}) } });
    this.chatHistory()
      .then((messages) => host.chat?.showMessages(messages))
      .catch((error: unknown) => console.warn('Could not load the chat history', error));
    if (options.locate) this.#keepSpeakersClear(options.locate);
  }

  /**
   * Tells the overlay where each speaking player is drawn, while they speak: on the speaking
   * change, then every LOCATE_MS while anyone speaks (they may walk), only when the rectangle moved.
   */
  #keepSpeakersClear(locate: (memberId: string) => PageRect | undefined): void {
    const shown = new Map<string, string>();
    let timer: ReturnType<typeof setInterval> | undefined;
    const update = (userId: string) => {
      const overlay = this.overlay;
      if (!overlay) return;
      const rect = this.voice.isSpeaking(userId) ? locate(userId) : undefined;
      const key = rect ? [rect.x, rect.y, rect.width, rect.height].map(Math.round).join() : '';
      if ((shown.get(userId) ?? '') === key) return;
      if (key) shown.set(userId, key);
      else shown.delete(userId);
      overlay.keepClear(`speaking:${userId}`, rect);
    };
    const tick = () => {
      for (const userId of [...shown.keys()]) update(userId);
      if (shown.size === 0 && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    };
    this.#off.push(
      this.voice.onSpeaking((userId) => {
        update(userId);
        if (shown.size > 0 && timer === undefined) timer = setInterval(tick, LOCATE_MS);
      }),
      () => clearInterval(timer),
    );
  }

  /** The overlay of the panels shown by `showPanels` (collapse, toggle key, docking). */
  get overlay(): LobbyOverlay | undefined {
    return this.#panels?.overlay;
  }

  /**
   * Where no panel covers the canvas (insets in CSS pixels from the overlay's edges): keep
   * avatars, hints and spawn points there. The whole overlay before panels are shown.
   */
  safeArea(): SafeArea | undefined {
    return this.overlay?.safeArea();
  }

  /** The lobby's last messages, oldest first. */
  chatHistory(limit = HISTORY_LIMIT): Promise<MessageHandle[]> {
    return this.client.getLobbyMessagesWithLimit(this.lobbyId, limit);
  }

  /** The link that brings a friend into this lobby (or the one with `secret`). */
  inviteUrl(secret = this.secret): string {
    return lobbyUrl(secret);
  }

  /** Opens the lobby with this secret (an accepted invite): a page load, so a clean start. */
  goToLobby(secret: string): void {
    location.assign(lobbyUrl(secret));
  }

  /** Renames the player (guests; a full account's name is set on its account page). */
  async rename(name: string): Promise<void> {
    await this.client.updateProvisionalAccountDisplayName(name);
    this.storage.set('displayName', name);
  }

  /**
   * "Sign in to keep your progress": the authorize popup, then the provisional merge (friends,
   * history and lobbies move to the full account), then a reload that starts as the full
   * account in the same lobby. Call it from a click (popups need a user gesture).
   */
  async linkAccount(): Promise<void> {
    if (this.signedIn || hasFullAccount(this.storage)) return;
    await linkAccount(this.client, this.config.applicationId, this.storage);
    await this.client.destroy();
    location.reload();
  }

  /** Called with the client's connection status (the bar shows it). */
  onStatus(listener: (status: ClientStatus) => void): () => void {
    return this.client.on('statusChanged', (status) => listener(status));
  }

  /** Leaves voice, drops every listener and the client. The lobby membership stays (a reload rejoins). */
  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const off of this.#off.splice(0)) off();
    await this.voice.leave().catch(() => {});
    this.voice.destroy();
    this.bar?.destroy();
    await this.client.destroy();
  }
}

/** Reads which application and server a hosted game uses (`/games/config.json` of the platform that serves it). */
export async function loadConfig(url = '/games/config.json'): Promise<GameConfig> {
  const response = await fetch(url, { cache: 'no-store' });
  if (!response.ok) throw new Error(`Could not load ${url}: HTTP ${response.status}`);
  const config = (await response.json()) as Partial<GameConfig>;
  if (typeof config.applicationId !== 'string' || !config.applicationId) throw new Error(`${url} has no applicationId`);
  return config as GameConfig;
}
