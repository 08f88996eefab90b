import { Script } from 'playcanvas';
import type { ShowFriendsOptions, ShowLobbyOptions } from '@social-layer/ui';
import { SocialLayer } from './SocialLayer.ts';
import type { PluginClient } from './types.ts';

/**
 * The Social Layer panels as a PlayCanvas ESM script, living as long as its entity:
 *
 * ```ts
 * entity.addComponent('script');
 * entity.script.create(SocialLayerScript, { properties: { client, lobbyId, pumpCallbacks: true } });
 * entity.script.socialLayer.layer.chat?.showMessages(history);
 * ```
 *
 * `initialize` builds a `SocialLayer` for the app and shows what the properties ask for;
 * disabling the script (or its entity) hides the panels, enabling shows them again; the
 * script's `destroy` (entity destroyed, script removed, app destroyed) frees every listener.
 * The properties are read once, at initialize: to show another lobby, call `layer.showLobby`.
 */
export class SocialLayerScript extends Script {
  static override scriptName = 'socialLayer';

  /** The client to show. Required: set it through `create(..., { properties: { client } })`. */
  client: PluginClient | undefined;
  /** The lobby whose chat and members to show at initialize, if any. */
  lobbyId: string | undefined;
  /** Options of the lobby panels. */
  lobby: ShowLobbyOptions | undefined;
  /** Options of the friends panel and invite toasts; `false` (the default) shows neither. */
  friends: ShowFriendsOptions | false = false;
  /** Pump `client.runCallbacks()` on every app update (clients made with `queueEvents: true`). */
  pumpCallbacks = false;
  /** Where the overlay goes; default the canvas's parent element. */
  parent: HTMLElement | undefined;

  #layer: SocialLayer | undefined;

  /** The layer this script drives, from initialize until destroy. */
  get layer(): SocialLayer | undefined {
    return this.#layer;
  }

  /** PlayCanvas calls it once: builds the layer for the app and shows what the properties ask for. */
  initialize(): void {
    if (!this.client) throw new Error('SocialLayerScript: set the client property when creating the script');
    const layer = new SocialLayer(this.app, this.client, { pumpCallbacks: this.pumpCallbacks, parent: this.parent });
    this.#layer = layer;
    if (this.lobbyId !== undefined) layer.showLobby(this.lobbyId, this.lobby);
    if (this.friends !== false) layer.showFriends(this.friends);
    this.on('state', this.#onState, this);
    this.once('destroy', this.#onDestroy, this);
  }

  #onState(enabled: boolean): void {
    const element = this.#layer?.overlay?.element;
    if (element) element.style.display = enabled ? '' : 'none';
  }

  #onDestroy(): void {
    this.off('state', this.#onState, this);
    this.#layer?.destroy();
    this.#layer = undefined;
  }
}
