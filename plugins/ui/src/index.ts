/**
 * @social-layer/ui: the engine-neutral DOM panels of the Social Layer engine plugins (lobby
 * chat, member list, friends panel, invite toasts, their overlay and stylesheet) and a DOM
 * push-to-talk key. No engine import; the plugins for Phaser, Babylon.js and PlayCanvas drive
 * these from their engine's lifecycle. Side-effect free: the stylesheet is added by the first
 * overlay and removed with the last.
 */
export { LobbyOverlay } from './LobbyOverlay.ts';
export { LobbyChatPanel } from './LobbyChatPanel.ts';
export { LobbyMemberList } from './LobbyMemberList.ts';
export { FriendsPanel } from './FriendsPanel.ts';
export { InviteToasts } from './InviteToasts.ts';
export { PushToTalkKey, MODE_PTT, type PushToTalkCall, type PushToTalkKeyOptions } from './PushToTalkKey.ts';
export type {
  ChatPanelOptions,
  FriendsClient,
  FriendsPanelOptions,
  InviteToastOptions,
  MemberListOptions,
  PanelAnchor,
  PanelClient,
  ShowFriendsOptions,
  ShowLobbyOptions,
} from './types.ts';
