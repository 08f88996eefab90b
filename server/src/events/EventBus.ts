/**
 * Pub/sub between the code that changes state and the Gateway sessions that must hear of it.
 * Topics are per recipient (`userTopic`). The in-process bus is the embedded default; a Redis
 * bus with the same interface carries the same messages between server nodes.
 */
export interface Dispatch {
  /** Dispatch event name (`t`). */
  t: string;
  /** The payload already serialized once, so a fan-out to N sessions serializes it once, not N times. */
  json: string;
  /**
   * Where the bus keeps a copy for Gateway Resume on another node (a Redis stream entry ID of the
   * recipient's user stream); absent on the in-process bus.
   */
  id?: string;
}

export type DispatchHandler = (dispatch: Dispatch) => void;

export interface EventBus {
  publish(topic: string, dispatch: Dispatch): void;
  /**
   * One dispatch to many topics (a lobby message to its members). On Redis, with user streams
   * on (the shared session store: every clustered node), the user topics go in one script per
   * 256, so a node that dies while publishing tells every recipient or none, never some of them.
   */
  publishMany(topics: readonly string[], dispatch: Dispatch): void;
  subscribe(topic: string, handler: DispatchHandler): () => void;
  /** Resolves once a subscription is live everywhere (a network bus subscribes asynchronously). */
  whenSubscribed(topic: string): Promise<void>;
  /** A network bus: told when its subscriptions are back after a drop, which lost what was published meanwhile. */
  onResubscribed?(listener: () => void): () => void;
  close(): Promise<void>;
}

export function userTopic(applicationId: string, userId: string): string {
  return `u:${applicationId}:${userId}`;
}

export class LocalEventBus implements EventBus {
  private readonly handlers = new Map<string, Set<DispatchHandler>>();

  publish(topic: string, dispatch: Dispatch): void {
    const set = this.handlers.get(topic);
    if (!set) return;
    for (const h of set) h(dispatch);
  }

  publishMany(topics: readonly string[], dispatch: Dispatch): void {
    for (const topic of topics) this.publish(topic, dispatch);
  }

  subscribe(topic: string, handler: DispatchHandler): () => void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0) this.handlers.delete(topic);
    };
  }

  async whenSubscribed(): Promise<void> {}

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
