/**
 * Redis key names shared by the bus (which appends user-topic dispatches to a per-user stream)
 * and the Gateway's shared session store (which reads them back on a Resume on another node).
 * One module, so the writer and the reader cannot drift apart.
 */
export const resumeKeys = {
  /** Present (with expiry) while some session of the topic's user may still be resumed: only then is the stream written. */
  userMarker: (prefix: string, topic: string) => `${prefix}gw:um:${topic}`,
  /** Every dispatch published to the user topic while a session may need it (XADD; bounded by count and age; expiring). */
  userStream: (prefix: string, topic: string) => `${prefix}gw:us:${topic}`,
  /** The session record: user, application, token hash, owning node, where its user stream starts. */
  session: (prefix: string, sessionId: string) => `${prefix}gw:s:${sessionId}`,
  /** The frames the session was sent, numbered (s), with the user-stream entry each came from (u). */
  sessionStream: (prefix: string, sessionId: string) => `${prefix}gw:q:${sessionId}`,
};

/** Settings of the per-user dispatch streams: how many entries and how long they are kept. */
export interface UserStreamSettings {
  maxLen: number;
  /** The stream key's expiry: set when the stream is created, renewed at each upkeep (trimClock.ts). */
  ttlMs: number;
  /**
   * Entries older than this are trimmed at the next upkeep (`XTRIM MINID ~`, by the Redis
   * clock, which also stamps the entry IDs; about once per sixteenth of the expiry,
   * trimClock.ts). Without it a busy player's stream held `maxLen` entries for as long as it
   * kept getting dispatches. See `streamMaxAgeMs` for why no entry a Resume needs is ever this old.
   */
  maxAgeMs: number;
}

/**
 * How old a stream entry (user or session stream) may get before it is trimmed. A session can
 * be resumed only while its record lives, and the record lives at most `recordTtlMs` past the
 * last sign of life of the node that held it (a heartbeat refresh, or the detach). What a
 * resuming client lacks was sent or published after that moment, give or take frames that
 * were in flight when its socket broke: `marginMs` covers those. So nothing a Resume needs is
 * older than `recordTtlMs + marginMs`.
 */
export function streamMaxAgeMs(recordTtlMs: number, marginMs = 60_000): number {
  return recordTtlMs + marginMs;
}

/** Only per-user topics are streamed: they are what a resumed session must not miss. */
export function isUserTopic(topic: string): boolean {
  return topic.startsWith('u:');
}
