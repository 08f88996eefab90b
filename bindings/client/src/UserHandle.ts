import type { ClientState } from './ClientState.ts';

/**
 * A live view of a user: every read goes to the client's current user object, so a rename shows
 * on handles taken earlier. Unknown users and a destroyed client read as empty values.
 */
export class UserHandle {
  /** @internal Handles come from the Client only. */
  constructor(
    private readonly state: ClientState,
    readonly id: string,
  ) {}

  /** Unique username; generated for provisional accounts. */
  get username(): string {
    return this.state.user(this.id)?.username ?? '';
  }

  /** The preferred name, when the user set one. */
  get globalName(): string | undefined {
    return this.state.user(this.id)?.global_name ?? undefined;
  }

  /** The global name if set, else the username. */
  get displayName(): string {
    const user = this.state.user(this.id);
    return user?.global_name || user?.username || '';
  }

  /** Avatar hash, if any. */
  get avatar(): string | undefined {
    return this.state.user(this.id)?.avatar ?? undefined;
  }

  get isProvisional(): boolean {
    return this.state.user(this.id)?.is_provisional ?? false;
  }

  get isBot(): boolean {
    return this.state.user(this.id)?.bot ?? false;
  }
}
