import { LocalSessionCounts } from './LocalSessionCounts.ts';

/**
 * Who is connected: live Gateway sessions per (application, user), which lobbies' `connected`
 * flag, friends' presence and embedded-activity expiry derive from. Two implementations share
 * this interface and one contract suite (test/connectionTrackerContract.test.ts): in memory for a
 * single node (below), and in Redis for a cluster (cluster/RedisConnectionTracker.ts).
 */
export type ConnectionListener = (applicationId: string, userId: string, connected: boolean) => void;

export interface ConnectionTracker {
  /**
   * Called when a user becomes connected to an application anywhere, or stops being connected
   * everywhere. In a cluster exactly one node hears each transition, so listeners announce it
   * (dispatches go out over the shared bus) without every node repeating them.
   */
  onChange(listener: ConnectionListener): () => void;
  /** Whether the user has a session in the application on any node (a dropped one counts during its grace period). */
  isConnected(applicationId: string, userId: string): boolean;
  /** The applications in which the user is connected on any node. */
  appsOf(userId: string): ReadonlySet<string>;
  /** A session of this node identified or resumed. */
  attach(applicationId: string, userId: string): void;
  /** A session of this node lost its socket; `graceful` skips the grace period (it ended on purpose). */
  detach(applicationId: string, userId: string, graceful: boolean): void;
  /** Shutdown: stops the timers (and, in a cluster, hands this node's entries over to expiry). */
  close(): Promise<void>;
}

/** The single-node tracker: this node's counts are the whole truth. */
export class MemoryConnectionTracker implements ConnectionTracker {
  private readonly listeners = new Set<ConnectionListener>();
  private readonly local: LocalSessionCounts;
  private closed = false;

  constructor(graceMs: number) {
    this.local = new LocalSessionCounts(graceMs, (applicationId, userId, connected) => {
      for (const l of this.listeners) l(applicationId, userId, connected);
    });
  }

  onChange(listener: ConnectionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isConnected(applicationId: string, userId: string): boolean {
    return this.local.count(applicationId, userId) > 0;
  }

  appsOf(userId: string): ReadonlySet<string> {
    return new Set(this.local.appsOf(userId));
  }

  attach(applicationId: string, userId: string): void {
    if (!this.closed) this.local.attach(applicationId, userId);
  }

  detach(applicationId: string, userId: string, graceful: boolean): void {
    if (!this.closed) this.local.detach(applicationId, userId, graceful);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.local.close();
  }
}
