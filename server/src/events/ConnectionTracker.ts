/**
 * Counts live Gateway sessions per (application, user), so lobbies can show who is connected.
 * A dropped socket counts as gone only after a grace period: a quick Resume should not flicker
 * the member list of everyone else in the lobby.
 */
export type ConnectionListener = (applicationId: string, userId: string, connected: boolean) => void;

export class ConnectionTracker {
  private readonly counts = new Map<string, number>();
  private readonly pendingDrops = new Map<string, NodeJS.Timeout>();
  private readonly listeners = new Set<ConnectionListener>();

  constructor(private readonly graceMs: number) {}

  onChange(listener: ConnectionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isConnected(applicationId: string, userId: string): boolean {
    return (this.counts.get(key(applicationId, userId)) ?? 0) > 0;
  }

  attach(applicationId: string, userId: string): void {
    const k = key(applicationId, userId);
    const n = this.counts.get(k) ?? 0;
    this.counts.set(k, n + 1);
    const pending = this.pendingDrops.get(k);
    if (pending) {
      // Re-attached inside the grace period: the drop never becomes visible.
      clearTimeout(pending);
      this.pendingDrops.delete(k);
      this.counts.set(k, n);
      return;
    }
    if (n === 0) this.emit(applicationId, userId, true);
  }

  /** `graceful` skips the grace period (the session ended on purpose). */
  detach(applicationId: string, userId: string, graceful: boolean): void {
    const k = key(applicationId, userId);
    const n = this.counts.get(k) ?? 0;
    if (n <= 0) return;
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

  close(): void {
    for (const t of this.pendingDrops.values()) clearTimeout(t);
    this.pendingDrops.clear();
  }

  private finishDrop(applicationId: string, userId: string): void {
    const k = key(applicationId, userId);
    const n = (this.counts.get(k) ?? 0) - 1;
    if (n <= 0) {
      this.counts.delete(k);
      this.emit(applicationId, userId, false);
    } else {
      this.counts.set(k, n);
    }
  }

  private emit(applicationId: string, userId: string, connected: boolean): void {
    for (const l of this.listeners) l(applicationId, userId, connected);
  }
}

function key(applicationId: string, userId: string): string {
  return `${applicationId}:${userId}`;
}
