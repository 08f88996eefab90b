import type { ClientError, ClientStatus } from '@social-layer/protocol';

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
}

export type ClientEventName = keyof ClientEvents;
export type Unsubscribe = () => void;
