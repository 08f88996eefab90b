import type { Client } from '@social-layer/client';
import type { OverlayOptions, PanelClient } from '@social-layer/ui';

/**
 * The slice of the Client API the component uses: the panels' slice plus `runCallbacks`. A real
 * `Client` has it all; a test can hand in a small fake.
 */
export type PluginClient = PanelClient & Pick<Client, 'runCallbacks'>;

/** Options of `SocialLayerComponent`. */
export interface SocialLayerComponentOptions {
  /**
   * Call `client.runCallbacks()` before every render of the scene (`onBeforeRenderObservable`).
   * Turn it on when the client was made with `queueEvents: true`, so social events land inside
   * the frame, as the native SDK's "callbacks once a frame". Default false.
   */
  pumpCallbacks?: boolean;
  /**
   * The element the panels are laid over. Default: the parent of the engine's rendering canvas.
   * Needed with a NullEngine (no canvas) when panels are shown.
   */
  parent?: HTMLElement;
  /** The overlay's options: its toggle key (Shift+Tab by default) and whether panels start collapsed. */
  overlay?: OverlayOptions;
}
