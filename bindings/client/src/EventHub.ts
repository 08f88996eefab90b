/* eslint-disable @typescript-eslint/no-explicit-any */
type Listener = (...args: any[]) => void;

/**
 * Typed multi-listener events. Listeners live in arrays so a plugin and the game can listen side
 * by side. With `queued`, emits are held until `runCallbacks()`, which gives a game the native
 * SDK's "callbacks run once a frame on my thread" guarantee.
 */
export class EventHub<E extends { [K in keyof E]: Listener }> {
  private readonly listeners = new Map<keyof E, Listener[]>();
  private readonly pending: { event: keyof E; args: unknown[] }[] = [];

  constructor(
    private readonly queued: boolean,
    private readonly onListenerError: (event: string, error: unknown) => void,
  ) {}

  on<K extends keyof E>(event: K, listener: E[K]): () => void {
    const list = this.listeners.get(event) ?? [];
    // Copy on write: a listener that unsubscribes during an emit must not skip its neighbour.
    this.listeners.set(event, [...list, listener]);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      const current = this.listeners.get(event) ?? [];
      const index = current.indexOf(listener);
      if (index >= 0) this.listeners.set(event, [...current.slice(0, index), ...current.slice(index + 1)]);
    };
  }

  emit<K extends keyof E>(event: K, ...args: Parameters<E[K]>): void {
    if (this.queued) {
      this.pending.push({ event, args });
      return;
    }
    this.deliver(event, args);
  }

  /** Delivers the events held so far (only those; ones emitted meanwhile wait for the next call). */
  runCallbacks(): void {
    const batch = this.pending.splice(0, this.pending.length);
    for (const { event, args } of batch) this.deliver(event, args);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  clear(): void {
    this.listeners.clear();
    this.pending.length = 0;
  }

  private deliver(event: keyof E, args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        listener(...args);
      } catch (error) {
        // A throwing game callback must not break the client's state machine.
        this.onListenerError(String(event), error);
      }
    }
  }
}
