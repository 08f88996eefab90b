import * as Phaser from 'phaser';
import { LobbyOverlay, type FriendsPanel, type InviteToasts, type LobbyChatPanel, type LobbyMemberList } from '@social-layer/ui';
import type { AttachOptions, FriendsClient, PluginClient, ShowFriendsOptions, ShowLobbyOptions } from './types.ts';

/** How often queued callbacks are pumped while the game loop sleeps (a game that draws on demand). */
const SLEEP_PUMP_MS = 50;

/**
 * Scene plugin that puts Social Layer lobby panels (chat, members) over a Phaser scene.
 *
 * Lifecycle: `boot` hooks the scene's update, shutdown and destroy events; `update` pumps the
 * client's queued callbacks when asked to, and while the game loop sleeps (a game that draws
 * frames on demand) a timer pumps them instead, so social events never wait for the next frame
 * that only they would ask for; `shutdown` removes the panels and every client
 * listener (the scene's `create` attaches again when it restarts); `destroy` also unhooks the
 * scene events. The social logic is the client's: this only shows it.
 *
 * Install with `plugins: { scene: [SocialLayerPlugin.sceneConfig()] }` in the game config, then
 * in a scene: `this.socialLayer.attach(client).showLobby(lobbyId)`.
 */
export class SocialLayerPlugin extends Phaser.Plugins.ScenePlugin {
  /** Plugin key in the Phaser plugin cache. */
  static readonly key = 'SocialLayerPlugin';
  /** Property the plugin appears under on every Scene (see the type augmentation). */
  static readonly mapping = 'socialLayer';

  /** The entry for `GameConfig.plugins.scene`. */
  static sceneConfig(): Phaser.Types.Core.PluginObjectItem {
    return { key: SocialLayerPlugin.key, plugin: SocialLayerPlugin, mapping: SocialLayerPlugin.mapping };
  }

  #client: PluginClient | undefined;
  #pumpCallbacks = false;
  #overlayOptions: AttachOptions['overlay'];
  #overlay: LobbyOverlay | undefined;
  #events: Phaser.Events.EventEmitter | undefined;
  #sleepPump: ReturnType<typeof setInterval> | undefined;

  override boot(): void {
    const events = this.systems?.events;
    if (!events || this.#events) return;
    this.#events = events;
    events.on(Phaser.Scenes.Events.UPDATE, this.#onUpdate);
    events.on(Phaser.Scenes.Events.SHUTDOWN, this.#onShutdown);
    events.once(Phaser.Scenes.Events.DESTROY, this.#onDestroy);
  }

  /** The client attached since the scene last started, if any. */
  get client(): PluginClient | undefined {
    return this.#client;
  }

  /** The overlay holding the panels (collapse, toggle, `safeArea()`), once a panel was shown. */
  get overlay(): LobbyOverlay | undefined {
    return this.#overlay;
  }

  /** The chat panel while a lobby is shown. */
  get chat(): LobbyChatPanel | undefined {
    return this.#overlay?.chat;
  }

  /** The member list while a lobby is shown. */
  get members(): LobbyMemberList | undefined {
    return this.#overlay?.members;
  }

  /** Uses `client` until the scene shuts down. Attaching another client detaches the first. */
  attach(client: PluginClient, options: AttachOptions = {}): this {
    if (this.#client !== client) this.detach();
    this.#client = client;
    this.#pumpCallbacks = options.pumpCallbacks ?? false;
    this.#overlayOptions = options.overlay;
    if (this.#pumpCallbacks && this.#sleepPump === undefined) this.#sleepPump = setInterval(this.#pumpWhileAsleep, SLEEP_PUMP_MS);
    return this;
  }

  /** Shows the panels for `lobbyId` over the game canvas, replacing any shown before. */
  showLobby(lobbyId: string, options: ShowLobbyOptions = {}): this {
    const client = this.#client;
    if (!client) throw new Error('SocialLayerPlugin: call attach(client) before showLobby()');
    this.#ensureOverlay().showLobby(lobbyId, options);
    return this;
  }

  #ensureOverlay(): LobbyOverlay {
    if (!this.#overlay) {
      const canvas = this.game?.canvas ?? this.scene?.sys.game.canvas;
      const parent = canvas?.parentElement;
      if (!parent) throw new Error('SocialLayerPlugin: the game canvas is not in the page yet');
      this.#overlay = new LobbyOverlay(this.#client!, parent, this.#overlayOptions);
      // The canvas's box changed size (the page header grew a row): the scale manager only polls
      // its parent while the loop runs, and a game drawing on demand may be asleep.
      this.#overlay.onResize(() => {
        const scale = this.game?.scale;
        if (!scale) return;
        scale.getParentBounds();
        scale.refresh();
      });
    }
    return this.#overlay;
  }

  /** The friends panel while shown (showFriends). */
  get friends(): FriendsPanel | undefined {
    return this.#overlay?.friends;
  }

  /** The invite toasts while shown (showFriends). */
  get toasts(): InviteToasts | undefined {
    return this.#overlay?.toasts;
  }

  /**
   * Shows the friends panel (presence, Invite buttons, requests) and invite toasts over the
   * canvas. The attached client must have the social calls (`FriendsClient`); a real Client does.
   * `toasts.onJoin(secret)` is where the game joins the party it was invited to.
   */
  showFriends(options: ShowFriendsOptions = {}): this {
    const client = this.#client as (PluginClient & Partial<FriendsClient>) | undefined;
    if (!client) throw new Error('SocialLayerPlugin: call attach(client) before showFriends()');
    if (typeof client.getRelationshipsByGroup !== 'function') throw new Error('SocialLayerPlugin: the attached client has no social API');
    this.#ensureOverlay().showFriends(client as FriendsClient, options);
    return this;
  }

  /** Removes the friends panel and the invite toasts. */
  hideFriends(): this {
    this.#overlay?.hideFriends();
    return this;
  }

  /** Removes the panels; the client stays attached. */
  hideLobby(): this {
    this.#overlay?.hideLobby();
    return this;
  }

  /** Removes the panels and forgets the client (what scene shutdown does). */
  detach(): this {
    this.#overlay?.destroy();
    this.#overlay = undefined;
    this.#client = undefined;
    this.#pumpCallbacks = false;
    if (this.#sleepPump !== undefined) clearInterval(this.#sleepPump);
    this.#sleepPump = undefined;
    return this;
  }

  override destroy(): void {
    this.detach();
    const events = this.#events;
    this.#events = undefined;
    events?.off(Phaser.Scenes.Events.UPDATE, this.#onUpdate);
    events?.off(Phaser.Scenes.Events.SHUTDOWN, this.#onShutdown);
    events?.off(Phaser.Scenes.Events.DESTROY, this.#onDestroy);
    super.destroy();
  }

  readonly #onUpdate = (): void => {
    if (this.#pumpCallbacks) this.#client?.runCallbacks();
  };

  /** The scene's update does not run while the loop sleeps: pump from here until it wakes. */
  readonly #pumpWhileAsleep = (): void => {
    if (this.#pumpCallbacks && this.game?.loop.running === false) this.#client?.runCallbacks();
  };

  readonly #onShutdown = (): void => {
    this.detach();
  };

  readonly #onDestroy = (): void => {
    this.destroy();
  };
}
