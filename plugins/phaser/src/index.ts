/**
 * @social-layer/phaser: lobby chat and member-list panels for Phaser 4 games, over the
 * Social Layer client. Importing this module loads Phaser, so it runs in browsers only.
 */
import './augment.ts';

export { SocialLayerPlugin } from './SocialLayerPlugin.ts';
export { LobbyOverlay } from './LobbyOverlay.ts';
export { LobbyChatPanel } from './LobbyChatPanel.ts';
export { LobbyMemberList } from './LobbyMemberList.ts';
export { FriendsPanel } from './FriendsPanel.ts';
export { InviteToasts } from './InviteToasts.ts';
export { PushToTalk, type PushToTalkCall } from './PushToTalk.ts';
export type {
  AttachOptions,
  ChatPanelOptions,
  FriendsClient,
  FriendsPanelOptions,
  InviteToastOptions,
  ShowFriendsOptions,
  MemberListOptions,
  PanelAnchor,
  PluginClient,
  ShowLobbyOptions,
} from './types.ts';
