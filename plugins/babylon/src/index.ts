/**
 * @social-layer/babylon: Social Layer lobby chat, member list, friends panel, invite toasts and
 * push-to-talk bound to a Babylon.js scene. Side-effect free: importing it registers nothing.
 * The panels are the engine-neutral ones of @social-layer/ui, re-exported here so a game needs
 * only this package.
 *
 * @module @social-layer/babylon
 */
export { SocialLayerComponent } from './SocialLayerComponent.ts';
export { PushToTalk } from './PushToTalk.ts';
export type { PluginClient, SocialLayerComponentOptions } from './types.ts';
export { LobbyOverlay, LobbyChatPanel, LobbyMemberList, FriendsPanel, InviteToasts } from '@social-layer/ui';
export type {
  ChatPanelOptions,
  FriendsClient,
  FriendsPanelOptions,
  InviteToastOptions,
  MemberListOptions,
  PanelAnchor,
  PushToTalkCall,
  PushToTalkKeyOptions,
  ShowFriendsOptions,
  ShowLobbyOptions,
} from '@social-layer/ui';
