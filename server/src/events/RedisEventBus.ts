import { Redis } from 'ioredis';
import type { Dispatch, DispatchHandler, EventBus } from './EventBus.ts';

/**
 * The event bus between server nodes (DESIGN.md, Storage and scale): each node subscribes to the
 * topics of the sessions it holds, and a publish reaches every node with a subscriber. Redis
 * pub/sub needs one connection for publishing and one for subscriptions. Local subscribers are
 * served in-process too, so a node does not wait on Redis for its own sessions.
 */
export class RedisEventBus implements EventBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Set<DispatchHandler>>();
  private readonly subscribing = new Map<string, Promise<unknown>>();
  /** Tags this node's own publishes, so their echo from Redis is not delivered twice. */
  private readonly nodeId = Math.random().toString(36).slice(2, 10);

  constructor(url: string, private readonly prefix = 'sl:') {
    this.pub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
    this.sub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
    this.sub.on('messageBuffer', (channel: Buffer, message: Buffer) => this.onMessage(channel.toString(), message.toString()));
  }

  /** Resolves once both connections are up, so the first subscribe is not lost. */
  async ready(): Promise<void> {
    await Promise.all([this.pub.ping(), this.sub.ping()]);
  }

  publish(topic: string, dispatch: Dispatch): void {
    this.deliver(topic, dispatch);
    // Wire form: node id, event name and the payload JSON, newline-separated (names have no newlines).
    this.pub.publish(this.prefix + topic, `${this.nodeId}\n${dispatch.t}\n${dispatch.json}`).catch(() => {});
  }

  subscribe(topic: string, handler: DispatchHandler): () => void {
    let set = this.handlers.get(topic);
    if (!set) {
      this.handlers.set(topic, (set = new Set()));
      const pending = this.sub.subscribe(this.prefix + topic).catch(() => {});
      this.subscribing.set(topic, pending);
      void pending.finally(() => {
        if (this.subscribing.get(topic) === pending) this.subscribing.delete(topic);
      });
    }
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(topic) === set) {
        this.handlers.delete(topic);
        this.sub.unsubscribe(this.prefix + topic).catch(() => {});
      }
    };
  }

  async whenSubscribed(topic: string): Promise<void> {
    await this.subscribing.get(topic);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }

  private onMessage(channel: string, message: string): void {
    const first = message.indexOf('\n');
    const second = message.indexOf('\n', first + 1);
    if (first < 0 || second < 0) return;
    if (message.slice(0, first) === this.nodeId) return;
    this.deliver(channel.slice(this.prefix.length), { t: message.slice(first + 1, second), json: message.slice(second + 1) });
  }

  private deliver(topic: string, dispatch: Dispatch): void {
    const set = this.handlers.get(topic);
    if (!set) return;
    for (const h of set) h(dispatch);
  }
}
