import type { ActivityInvite, Client } from '@social-layer/client';

/**
 * The slice of the Client API the lobby panels (chat, member list) use. Naming it keeps the
 * panels honest about having no social logic of their own, and lets a test hand in a small fake.
 */
export type PanelClient = Pick<Client, 'on' | 'getLobbyHandle' | 'getMessageHandle' | 'getCurrentUserV2' | 'sendLobbyMessage'>;

/** The overlay's own options (engine plugins pass them through). */
export interface OverlayOptions {
  /**
   * The key chord that collapses or expands every panel, e.g. 'Shift+Tab' (the default) or
   * 'Alt+KeyS'; false for none. It acts while focus is in the game, not inside a panel.
   */
  toggleKey?: string | false;
  /** Start with every panel collapsed to its title bar. Default false. */
  collapsed?: boolean;
}

/** Where a panel sits over the game canvas. */
export type PanelAnchor = 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right';

/** Options of the lobby chat panel. */
export interface ChatPanelOptions {
  /** Panel heading. Default 'Lobby chat'. */
  title?: string;
  /** Input placeholder. Default 'Say something…'. */
  placeholder?: string;
  /** Oldest rows are dropped past this many. Default 200. */
  maxMessages?: number;
  /** Default 'bottom-left'. */
  anchor?: PanelAnchor;
}

/** Options of the lobby member list. */
export interface MemberListOptions {
  /** Panel heading. Default 'Players'. */
  title?: string;
  /** Default 'top-right'. */
  anchor?: PanelAnchor;
  /** A CSS color for a member's swatch (the game's avatar color, say); none draws no swatch. */
  memberColor?: (memberId: string) => string | undefined;
}

/** What `LobbyOverlay.showLobby` shows: the chat and member list of a lobby, with their options. */
export interface ShowLobbyOptions {
  /** Chat panel options, or false for no chat panel. */
  chat?: ChatPanelOptions | false;
  /** Member list options, or false for no member list. */
  members?: MemberListOptions | false;
}

/**
 * The slice of the Client the friends panel and invite toasts use (social features, issue 6).
 * A client attached to an engine plugin must have these for `showFriends`.
 */
export type FriendsClient = Pick<
  Client,
  | 'on'
  | 'getUser'
  | 'getRelationships'
  | 'getRelationshipsByGroup'
  | 'sendActivityInvite'
  | 'acceptActivityInvite'
  | 'sendActivityJoinRequestReply'
  | 'sendDiscordFriendRequest'
  | 'acceptDiscordFriendRequest'
  | 'rejectDiscordFriendRequest'
> &
  // Optional so minimal clients still fit: without it the panel does not show the player's own username.
  Partial<Pick<Client, 'getCurrentUserV2'>>;

/** Options of the friends panel. */
export interface FriendsPanelOptions {
  /** Panel heading. Default 'Friends'. */
  title?: string;
  /** Default 'top-left'. */
  anchor?: PanelAnchor;
}

/** Options of the invite toasts. */
export interface InviteToastOptions {
  /**
   * Called with the join secret when the player accepts an invite: the game joins the party
   * (createOrJoinLobby(secret), a scene change...). Without it, Accept only fetches the secret.
   */
  onJoin?: (joinSecret: string, invite: ActivityInvite) => void | Promise<void>;
  /** A toast goes away after this long. Default 30000 ms. */
  timeoutMs?: number;
  /** Default 'top-center'. */
  anchor?: PanelAnchor | 'top-center';
}

/** What `LobbyOverlay.showFriends` shows: the friends panel and the invite toasts, with their options. */
export interface ShowFriendsOptions {
  /** Friends panel options, or false for none. */
  panel?: FriendsPanelOptions | false;
  /** Invite toast options, or false for none. */
  toasts?: InviteToastOptions | false;
}
