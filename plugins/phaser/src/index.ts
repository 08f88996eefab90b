/**
 * @social-layer/phaser: lobby chat and member-list panels for Phaser 4 games, over the
 * Social Layer client. Importing this module loads Phaser, so it runs in browsers only.
 *
 * @module @social-layer/phaser
 */
import './augment.ts';

export { SocialLayerPlugin } from './SocialLayerPlugin.ts';
// The panels live in @social-layer/ui (shared with the other engine plugins); re-exported so
// this package's surface is unchanged.
export { LobbyOverlay, LobbyChatPanel, LobbyMemberList, FriendsPanel, InviteToasts } from '@social-layer/ui';
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
