import type { ClientError, ClientStatus } from '@social-layer/protocol';
import type { ActivityInvite } from './ActivityInvite.ts';

/**
 * Every event of the Client, with its listener signature. Event payloads are IDs, not objects,
 * as in the native SDK: read the current state through a handle (`getLobbyHandle`, ...).
 */
export interface ClientEvents {
  /** `errorDetail` is the Gateway close code when the change was caused by one, else 0. */
  statusChanged: (status: ClientStatus, error: ClientError, errorDetail: number) => void;
  /** This user joined a lobby (or created one). */
  lobbyCreated: (lobbyId: string) => void;
  /** A lobby this user was in is gone for them: they left, were removed, or it was deleted. */
  lobbyDeleted: (lobbyId: string) => void;
  /** A lobby's metadata or settings changed. */
  lobbyUpdated: (lobbyId: string) => void;
  /** Someone joined a lobby this user is in. */
  lobbyMemberAdded: (lobbyId: string, memberId: string) => void;
  /** Someone left a lobby this user is in. */
  lobbyMemberRemoved: (lobbyId: string, memberId: string) => void;
  /** A member's metadata or connection changed. */
  lobbyMemberUpdated: (lobbyId: string, memberId: string) => void;
  /** A lobby or direct message arrived (this user's own too). */
  messageCreated: (messageId: string) => void;
  /** A user object the client knows changed (display name, ...). */
  userUpdated: (userId: string) => void;
  // ---- social (issue 6) ----
  /** A relationship was created or changed type (request sent or accepted, block...). */
  relationshipCreated: (userId: string, isDiscordRelationshipUpdate: boolean) => void;
  /** A relationship ended; afterwards getRelationshipHandle(userId) reads None for that kind. */
  relationshipDeleted: (userId: string, isDiscordRelationshipUpdate: boolean) => void;
  /** A list from getRelationshipsByGroup may be stale: a friend's status, game, name or friendship changed. */
  relationshipGroupsUpdated: (userId: string) => void;
  /** An invite or join request arrived. */
  activityInviteCreated: (invite: ActivityInvite) => void;
  /** An invite turned valid or invalid. */
  activityInviteUpdated: (invite: ActivityInvite) => void;
  /** A message was edited, or its moderation metadata changed. */
  messageUpdated: (messageId: string) => void;
  /** A message was deleted. */
  messageDeleted: (messageId: string, channelId: string) => void;
  /** Someone joined (`added`) or left a lobby's call; fires for calls we are not in too. */
  voiceParticipantChanged: (lobbyId: string, memberId: string, added: boolean) => void;
  // ---- issue 19 ----
  /** The player accepted an invite outside the game (desktop companion): join with this secret. */
  activityJoin: (joinSecret: string) => void;
  /** As activityJoin, with the application the invite was for. */
  activityJoinWithApplication: (applicationId: string, joinSecret: string) => void;
  /** setNoAudioInputCallback: false when the microphone delivers only silence, true when sound is back. */
  noAudioInput: (inputDetected: boolean) => void;
}

/** The name of a client event, as `client.on(name, listener)` takes it. */
export type ClientEventName = keyof ClientEvents;
/** Removes the listener that `on` added; calling it again does nothing. */
export type Unsubscribe = () => void;
