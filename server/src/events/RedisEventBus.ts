import { Redis } from 'ioredis';
import type { Dispatch, DispatchHandler, EventBus } from './EventBus.ts';
import { isUserTopic, resumeKeys, type UserStreamSettings } from './resumeKeys.ts';
import { TrimClock, trimIntervalMs } from './trimClock.ts';

/**
 * Publishes a dispatch to user topics and, for each whose user may still resume a session (its
 * marker key exists), appends it to the user's stream in the same step: a node that takes a
 * session over reads what was published while no node held it (node dead, client not back yet).
 * The stream entry ID travels with the message so each session can tell what it already has.
 * The stream is bounded by count (MAXLEN ~) and by age (MINID ~ on the Redis clock, which
 * stamps the IDs); `~` trims whole stream nodes only, which is what keeps trimming cheap. The
 * stream's upkeep (its expiry renewed, the age trim) runs when the node asks (a topic's max age
 * > 0), about once per interval per topic from each node (trimClock.ts); a stream the script
 * creates gets its expiry at once (the first XADD is NOMKSTREAM: it answers nil when there is
 * no stream yet).
 *
 * All the topics of one fan-out go in one script, so Redis runs it whole or not at all: when a
 * node was killed between the per-topic commands of a lobby message, some members had the
 * message (live, or in their stream for a Resume) and the others never would (the cluster test
 * caught receivers of one sender disagreeing). It also sends the payload once, not per member.
 *
 * KEYS: marker and stream of each topic, in pairs. ARGV: node id, event name, payload JSON,
 * MAXLEN, expiry ms; then the channel and the max age (0: no upkeep) of each topic, in pairs.
 * Answers each topic's stream entry ID ('' where none was written).
 */
const PUBLISH_STREAMED = `
local ids = {}
local cutoffBase = nil
for i = 1, #KEYS / 2 do
  local marker, stream = KEYS[2 * i - 1], KEYS[2 * i]
  local channel, maxAge = ARGV[4 + 2 * i], tonumber(ARGV[5 + 2 * i])
  local id = ''
  if redis.call('EXISTS', marker) == 1 then
    id = redis.call('XADD', stream, 'NOMKSTREAM', 'MAXLEN', '~', ARGV[4], '*', 't', ARGV[2], 'j', ARGV[3])
    local created = not id
    if created then id = redis.call('XADD', stream, 'MAXLEN', '~', ARGV[4], '*', 't', ARGV[2], 'j', ARGV[3]) end
    if created or maxAge > 0 then redis.call('PEXPIRE', stream, ARGV[5]) end
    if maxAge > 0 then
      if not cutoffBase then
        local now = redis.call('TIME')
        cutoffBase = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
      end
      local cutoff = cutoffBase - maxAge
      if cutoff > 0 then redis.call('XTRIM', stream, 'MINID', '~', string.format('%d', cutoff)) end
    end
  end
  redis.call('PUBLISH', channel, ARGV[1] .. '\\n' .. id .. '\\n' .. ARGV[2] .. '\\n' .. ARGV[3])
  ids[i] = id
end
return ids
`;

/**
 * Topics per script call. A fan-out larger than this (a big guild) is split: each part is still
 * whole, and Redis, which runs one script at a time, is not held for thousands of topics.
 */
const TOPICS_PER_SCRIPT = 256;

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

  /**
   * Set by streamUserTopics; without it a publish is a plain PUBLISH. `upkeep` says when a
   * stream's upkeep is due (about once per interval per topic from this node); `expiryMs` is the
   * expiry it sets.
   */
  private userStreams: { settings: UserStreamSettings; upkeep: TrimClock; expiryMs: number } | null = null;

  constructor(url: string, readonly prefix = 'sl:') {
    // Not auto-pipelined. ioredis's enableAutoPipelining saved about 10% of Redis CPU per dispatch
    // in cluster-fanout, but with it the cluster test lost or doubled a dispatch in 2 of 13 runs
    // under load (none in 12 without). With it, commands wait while an earlier batch is in
    // flight, a node's own deliveries wait for the whole batch's replies, and commands it does
    // not batch (the session store's MULTI) can go before queued ones; Resume depends on the
    // order of those writes and deliveries (the reorder window in RedisSessionStore).
    this.pub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
    // The key count varies with the topics: given per call (numberOfKeys omitted).
    this.pub.defineCommand('publishStreamed', { lua: PUBLISH_STREAMED });
    // Named, so an operator (or a test) can tell this node's subscriber among Redis's clients.
    this.sub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3, connectionName: `sl-bus-sub-${this.nodeId}` });
    this.sub.on('messageBuffer', (channel: Buffer, message: Buffer) => this.onMessage(channel.toString(), message.toString()));
    this.sub.on('ready', () => {
      if (!this.everReady) {
        this.everReady = true;
        return;
      }
      // ioredis subscribes again by itself on reconnect; a PING answered after those SUBSCRIBEs
      // (one connection, in order) says they are live, and what was published before is gone.
      void this.sub.ping().then(
        () => {
          for (const l of this.resubscribed) l();
        },
        () => {},
      );
    });
  }

  private everReady = false;
  private readonly resubscribed = new Set<() => void>();

  /**
   * Told when the subscriber connection is back after a drop (and subscribed again): pub/sub
   * dropped whatever was published to this node meanwhile, so what depends on every dispatch
   * (the Gateway's sessions) must recover it another way.
   */
  onResubscribed(listener: () => void): () => void {
    this.resubscribed.add(listener);
    return () => this.resubscribed.delete(listener);
  }

  /**
   * Keeps user-topic dispatches in per-user streams while a session of the user may be resumed
   * (resumeKeys.ts), for Gateway Resume on any node.
   */
  streamUserTopics(settings: UserStreamSettings): void {
    const intervalMs = trimIntervalMs(settings.maxAgeMs, settings.ttlMs);
    // Renewed at upkeep only, one to two intervals apart: two intervals more keep a stream at
    // least ttlMs past its last publish, as when every publish renewed it. A Resume late in its
    // window reads entries published just before (the session's stream, by contrast, is also
    // renewed by heartbeats and on detach).
    this.userStreams = { settings, upkeep: new TrimClock(intervalMs), expiryMs: settings.ttlMs + 2 * intervalMs };
  }

  /** Resolves once both connections are up, so the first subscribe is not lost. */
  async ready(): Promise<void> {
    await Promise.all([this.pub.ping(), this.sub.ping()]);
  }

  publish(topic: string, dispatch: Dispatch): void {
    this.publishMany([topic], dispatch);
  }

  publishMany(topics: readonly string[], dispatch: Dispatch): void {
    const streams = this.userStreams;
    if (!streams) {
      for (const topic of topics) this.publishPlain(topic, dispatch);
      return;
    }
    const streamed: string[] = [];
    for (const topic of topics) {
      if (isUserTopic(topic)) streamed.push(topic);
      else this.publishPlain(topic, dispatch);
    }
    for (let i = 0; i < streamed.length; i += TOPICS_PER_SCRIPT) this.publishStreamed(streamed.slice(i, i + TOPICS_PER_SCRIPT), dispatch, streams);
  }

  private publishStreamed(topics: string[], dispatch: Dispatch, { settings, upkeep, expiryMs }: NonNullable<RedisEventBus['userStreams']>): void {
    const keys: string[] = [];
    const perTopic: (string | number)[] = [];
    for (const topic of topics) {
      keys.push(resumeKeys.userMarker(this.prefix, topic), resumeKeys.userStream(this.prefix, topic));
      // 0: no upkeep this time (expiry renewal and age trim).
      perTopic.push(this.prefix + topic, upkeep.due(topic) ? settings.maxAgeMs : 0);
    }
    // Local sessions get it once the stream entry IDs are known (they record which entries they hold).
    (this.pub as Redis & { publishStreamed(...args: (string | number)[]): Promise<string[]> })
      .publishStreamed(keys.length, ...keys, this.nodeId, dispatch.t, dispatch.json, settings.maxLen, expiryMs, ...perTopic)
      .then(
        (ids) => topics.forEach((topic, i) => this.deliver(topic, ids[i] ? { t: dispatch.t, json: dispatch.json, id: ids[i] } : dispatch)),
        () => {
          for (const topic of topics) this.publishPlain(topic, dispatch);
        },
      );
  }

  private publishPlain(topic: string, dispatch: Dispatch): void {
    this.deliver(topic, dispatch);
    // Wire form: node id, stream entry ID (may be empty), event name and the payload JSON,
    // newline-separated (none of the first three has a newline).
    this.pub.publish(this.prefix + topic, `${this.nodeId}\n\n${dispatch.t}\n${dispatch.json}`).catch(() => {});
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
    const third = message.indexOf('\n', second + 1);
    if (first < 0 || second < 0 || third < 0) return;
    if (message.slice(0, first) === this.nodeId) return;
    const id = message.slice(first + 1, second);
    const t = message.slice(second + 1, third);
    const json = message.slice(third + 1);
    this.deliver(channel.slice(this.prefix.length), id ? { t, json, id } : { t, json });
  }

  private deliver(topic: string, dispatch: Dispatch): void {
    const set = this.handlers.get(topic);
    if (!set) return;
    for (const h of set) h(dispatch);
  }
}
