/**
 * This node's copy of who is connected anywhere in the cluster, so reads stay synchronous (a
 * lobby view asks about every member). Redis numbers every transition from one counter; a
 * transition older than what the mirror already holds for that key is stale (the announcing node
 * applies its own transition at once and hears the echo later) and is dropped. A key that went
 * offline keeps its number for a while as a tombstone so that a late echo of the older "online"
 * cannot bring it back.
 */
const TOMBSTONE_MS = 120_000;

export class ConnectionMirror {
  /** userId -> applicationId -> sequence number of the transition that connected it. */
  private readonly online = new Map<string, Map<string, number>>();
  private readonly tombstones = new Map<string, { seq: number; at: number }>();
  /** Transitions up to this number are already in the snapshot. */
  private floor = 0;

  /** Replaces the contents with a snapshot taken at sequence number `seq`. */
  load(seq: number, keys: Iterable<string>): void {
    this.online.clear();
    this.tombstones.clear();
    this.floor = seq;
    for (const k of keys) {
      const [applicationId, userId] = splitKey(k);
      this.entry(userId).set(applicationId, seq);
    }
  }

  /** Applies one transition; returns whether it changed anything. */
  apply(applicationId: string, userId: string, seq: number, connected: boolean): boolean {
    if (seq <= this.floor) return false;
    const k = `${applicationId}:${userId}`;
    const apps = this.online.get(userId);
    const known = apps?.get(applicationId) ?? this.tombstones.get(k)?.seq ?? 0;
    if (seq <= known) return false;
    if (connected) {
      this.tombstones.delete(k);
      this.entry(userId).set(applicationId, seq);
    } else {
      apps?.delete(applicationId);
      if (apps?.size === 0) this.online.delete(userId);
      this.tombstones.set(k, { seq, at: Date.now() });
    }
    return true;
  }

  has(applicationId: string, userId: string): boolean {
    return this.online.get(userId)?.has(applicationId) ?? false;
  }

  appsOf(userId: string): Iterable<string> {
    return this.online.get(userId)?.keys() ?? [];
  }

  /** Drops tombstones old enough that no echo can still be on its way. */
  prune(now = Date.now()): void {
    for (const [k, t] of this.tombstones) if (now - t.at > TOMBSTONE_MS) this.tombstones.delete(k);
  }

  private entry(userId: string): Map<string, number> {
    let apps = this.online.get(userId);
    if (!apps) this.online.set(userId, (apps = new Map()));
    return apps;
  }
}

/** Keys are `applicationId:userId`; both are snowflakes, so the first colon splits them. */
export function splitKey(k: string): [applicationId: string, userId: string] {
  const i = k.indexOf(':');
  return [k.slice(0, i), k.slice(i + 1)];
}
