import type { Client } from '@social-layer/client';
import type { OverlayOptions, PushToTalkKeyOptions } from '@social-layer/ui';

/**
 * The slice of the Client API the adapter and its lobby panels use. Naming it keeps the plugin
 * honest about having no social logic of its own, and lets a test hand in a small fake.
 */
export type PluginClient = Pick<
  Client,
  'on' | 'getLobbyHandle' | 'getMessageHandle' | 'getCurrentUserV2' | 'sendLobbyMessage' | 'runCallbacks'
>;

/** Options of `SocialLayer` (and `SocialLayerScript`). */
export interface AttachOptions {
  /**
   * Call `client.runCallbacks()` on every app `update`. Turn it on when the client was made with
   * `queueEvents: true`, so social events land inside the game loop. Default false.
   */
  pumpCallbacks?: boolean;
  /**
   * Where the panels' overlay goes. Default: the parent element of the app's canvas, which the
   * overlay then covers.
   */
  parent?: HTMLElement;
  /** The overlay's options: its toggle key (Shift+Tab by default) and whether panels start collapsed. */
  overlay?: OverlayOptions;
}

/** Options of `SocialLayer.bindPushToTalk`: the ui package's key options. */
export type PushToTalkOptions = PushToTalkKeyOptions;
