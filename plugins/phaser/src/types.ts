import type { OverlayOptions, PanelClient } from '@social-layer/ui';
import type { Client } from '@social-layer/client';

export type {
  ChatPanelOptions,
  FriendsClient,
  FriendsPanelOptions,
  InviteToastOptions,
  MemberListOptions,
  OverlayOptions,
  PanelAnchor,
  ShowFriendsOptions,
  ShowLobbyOptions,
} from '@social-layer/ui';

/**
 * The slice of the Client API the plugin uses: the panels' slice plus `runCallbacks`. Naming it
 * keeps the plugin honest about having no social logic of its own, and lets a test hand in a
 * small fake.
 */
export type PluginClient = PanelClient & Pick<Client, 'runCallbacks'>;

/** Options of `this.socialLayer.attach(client, options)`. */
export interface AttachOptions {
  /**
   * Call `client.runCallbacks()` on every scene update. Turn it on when the client was made with
   * `queueEvents: true`, so social events land inside the game loop. While the loop sleeps (a game
   * that draws frames on demand, `game.loop.sleep()`), a 50 ms timer pumps them instead. Default false.
   */
  pumpCallbacks?: boolean;
  /** The overlay's options: its toggle key (Shift+Tab by default) and whether panels start collapsed. */
  overlay?: OverlayOptions;
}
