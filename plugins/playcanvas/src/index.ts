/**
 * @social-layer/playcanvas: the Social Layer panels (lobby chat, members, friends, invite
 * toasts) and push-to-talk over a PlayCanvas app, as an app-level system (`SocialLayer`) or an
 * ESM script (`SocialLayerScript`). The panels are `@social-layer/ui`'s; this package only ties
 * them to the app's update and destroy. Imports in Node; the panels need a DOM.
 *
 * @module @social-layer/playcanvas
 */
import './augment.ts';

export { SocialLayer } from './SocialLayer.ts';
export { SocialLayerScript } from './SocialLayerScript.ts';
export type { AttachOptions, PluginClient, PushToTalkOptions } from './types.ts';
export {
  FriendsPanel,
  InviteToasts,
  LobbyChatPanel,
  LobbyMemberList,
  LobbyOverlay,
  PushToTalkKey,
  type ChatPanelOptions,
  type FriendsClient,
  type FriendsPanelOptions,
  type InviteToastOptions,
  type MemberListOptions,
  type PanelAnchor,
  type PushToTalkCall,
  type ShowFriendsOptions,
  type ShowLobbyOptions,
} from '@social-layer/ui';
