import type { ClientError, ClientStatus } from '@social-layer/protocol';
import type { ActivityInvite } from './ActivityInvite.ts';

/**
 * Every event of the Client, with its listener signature. Event payloads are IDs, not objects,
 * as in the native SDK: read the current state through a handle (`getLobbyHandle`, ...).
 */
export interface ClientEvents {
  /** `errorDetail` is the Gateway close code when the change was caused by one, else 0. */
  statusChanged: (status: ClientStatus, error: ClientError, errorDetail: number) => void;
  lobbyCreated: (lobbyId: string) => void;
  lobbyDeleted: (lobbyId: string) => void;
  lobbyUpdated: (lobbyId: string) => void;
  lobbyMemberAdded: (lobbyId: string, memberId: string) => void;
  lobbyMemberRemoved: (lobbyId: string, memberId: string) => void;
  lobbyMemberUpdated: (lobbyId: string, memberId: string) => void;
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

export type ClientEventName = keyof ClientEvents;
export type Unsubscribe = () => void;
