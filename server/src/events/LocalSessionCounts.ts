/**
 * Live Gateway sessions per (application, user) on this node, with the grace period: a dropped
 * socket counts as gone only after `graceMs`, so a quick Resume does not flicker the member list
 * of everyone else in the lobby. It reports this node's own transitions (first session came,
 * last session went); what they mean for the whole cluster is the tracker's business.
 */
export type Transition = (applicationId: string, userId: string, connected: boolean) => void;

export class LocalSessionCounts {
  /** userId -> applicationId -> live sessions (a session in its grace period still counts). */
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly pendingDrops = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly graceMs: number,
    private readonly onTransition: Transition,
  ) {}

  count(applicationId: string, userId: string): number {
    return this.counts.get(userId)?.get(applicationId) ?? 0;
  }

  /** Applications in which the user holds a session on this node. */
  appsOf(userId: string): Iterable<string> {
    return this.counts.get(userId)?.keys() ?? [];
  }

  /** Every (application, user) with a session on this node. */
  *entries(): Iterable<[applicationId: string, userId: string]> {
    for (const [userId, apps] of this.counts) for (const applicationId of apps.keys()) yield [applicationId, userId];
  }

  attach(applicationId: string, userId: string): void {
    const k = key(applicationId, userId);
    const n = this.count(applicationId, userId);
    const pending = this.pendingDrops.get(k);
    if (pending) {
      // Re-attached inside the grace period: the drop never becomes visible.
      clearTimeout(pending);
      this.pendingDrops.delete(k);
      return;
    }
    this.set(applicationId, userId, n + 1);
    if (n === 0) this.onTransition(applicationId, userId, true);
  }

  /** `graceful` skips the grace period (the session ended on purpose). */
  detach(applicationId: string, userId: string, graceful: boolean): void {
    const n = this.count(applicationId, userId);
    if (n <= 0) return;
    const k = key(applicationId, userId);
    if (n > 1 || graceful || this.graceMs <= 0) {
      this.finishDrop(applicationId, userId);
      return;
    }
    if (this.pendingDrops.has(k)) return;
    this.pendingDrops.set(
      k,
      setTimeout(() => {
        this.pendingDrops.delete(k);
        this.finishDrop(applicationId, userId);
      }, this.graceMs),
    );
  }

  /** Forgets the pending drops (shutdown): their timers must not outlive the server. */
  close(): void {
    for (const t of this.pendingDrops.values()) clearTimeout(t);
    this.pendingDrops.clear();
  }

  private finishDrop(applicationId: string, userId: string): void {
    const n = this.count(applicationId, userId) - 1;
    this.set(applicationId, userId, n);
    if (n <= 0) this.onTransition(applicationId, userId, false);
  }

  private set(applicationId: string, userId: string, n: number): void {
    let apps = this.counts.get(userId);
    if (n > 0) {
      if (!apps) this.counts.set(userId, (apps = new Map()));
      apps.set(applicationId, n);
      return;
    }
    apps?.delete(applicationId);
    if (apps?.size === 0) this.counts.delete(userId);
  }
}

export function connectionKey(applicationId: string, userId: string): string {
  return `${applicationId}:${userId}`;
}

const key = connectionKey;
