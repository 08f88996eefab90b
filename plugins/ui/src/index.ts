/**
 * @social-layer/ui: the quick-start layer (`GameSession`: player, lobby from the URL, deep
 * links, rich presence, voice, latest-only state; `PlayerBar` for the page header) and the
 * engine-neutral DOM panels of the Social Layer engine plugins (lobby chat, member list, friends
 * panel, invite toasts, their overlay and stylesheet) and a DOM push-to-talk key. No engine
 * import; the plugins for Phaser, Babylon.js and PlayCanvas drive these from their engine's
 * lifecycle. Side-effect free: the stylesheet is added by the first overlay or bar and removed
 * with the last.
 *
 * @module @social-layer/ui
 */
export { LobbyOverlay, type PageRect } from './LobbyOverlay.ts';
export type { SafeArea } from './overlayLayout.ts';
export { isPanelCollapsed, setPanelCollapsed } from './panelFrame.ts';
export { LobbyChatPanel } from './LobbyChatPanel.ts';
export { LobbyMemberList } from './LobbyMemberList.ts';
export { FriendsPanel } from './FriendsPanel.ts';
export { InviteToasts } from './InviteToasts.ts';
export { DeviceAuthorizationPanel, type DeviceAuthorizationPanelOptions } from './DeviceAuthorizationPanel.ts';
export { PushToTalkKey, MODE_PTT, type PushToTalkCall, type PushToTalkKeyOptions } from './PushToTalkKey.ts';
export {
  GameSession,
  loadConfig,
  type GameConfig,
  type GameSessionOptions,
  type MemberTracker,
  type MemberView,
  type MemberState,
  type PanelHost,
  type SessionMember,
  type ShowPanelsOptions,
} from './session/GameSession.ts';
export { PlayerBar, type PlayerBarOptions } from './session/PlayerBar.ts';
export { VoiceChat, type VoiceChatOptions } from './session/VoiceChat.ts';
export { GameStorage } from './session/GameStorage.ts';
export { LatestOnly } from './session/LatestOnly.ts';
export { keepPresenceInStep, type LobbyPresenceOptions } from './session/LobbyPresence.ts';
export { launchUrl, lobbySecretFromUrl, lobbyUrl } from './session/lobbyLink.ts';
export { generateGuestName, pickRandom, randomHex } from './session/random.ts';
export type {
  ChatPanelOptions,
  FriendsClient,
  FriendsPanelOptions,
  InviteToastOptions,
  MemberListOptions,
  OverlayOptions,
  PanelAnchor,
  PanelClient,
  ShowFriendsOptions,
  ShowLobbyOptions,
} from './types.ts';
