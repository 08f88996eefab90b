import { RelationshipType } from '@social-layer/protocol';
import type { ClientState } from './ClientState.ts';
import { UserHandle } from './UserHandle.ts';

/**
 * A live view of the relationship between the current user and another (social-sdk-api.md 3.2).
 * Two kinds live side by side: the platform relationship, across every game (the native accessor
 * name `discordRelationshipType` is kept so code maps one to one), and the relationship in this
 * game. With neither, both read `None`, as the native handle does after a RelationshipDeleted.
 */
export class RelationshipHandle {
  /** @internal Handles come from the Client only. */
  constructor(
    private readonly state: ClientState,
    /** The other user's ID. */
    readonly id: string,
  ) {}

  /** The platform relationship (friends across games, requests, blocks). */
  discordRelationshipType(): RelationshipType {
    return this.record()?.type as RelationshipType | undefined ?? RelationshipType.None;
  }

  /** The relationship in this game only. */
  gameRelationshipType(): RelationshipType {
    return this.record()?.gameType as RelationshipType | undefined ?? RelationshipType.None;
  }

  /** True when the server believes this incoming request is spam (see server/README.md). */
  isSpamRequest(): boolean {
    return this.record()?.isSpamRequest ?? false;
  }

  /** The other user, when the client knows them. */
  user(): UserHandle | undefined {
    return this.state.user(this.id) ? new UserHandle(this.state, this.id) : undefined;
  }

  private record() {
    return this.state.destroyed ? undefined : this.state.social.relationships.get(this.id);
  }
}
