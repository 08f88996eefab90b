/**
 * Redis key names shared by the bus (which appends user-topic dispatches to a per-user stream)
 * and the Gateway's shared session store (which reads them back on a Resume on another node).
 * One module, so the writer and the reader cannot drift apart.
 */
export const resumeKeys = {
  /** Present (with expiry) while some session of the topic's user may still be resumed: only then is the stream written. */
  userMarker: (prefix: string, topic: string) => `${prefix}gw:um:${topic}`,
  /** Every dispatch published to the user topic while a session may need it (XADD, MAXLEN ~, expiring). */
  userStream: (prefix: string, topic: string) => `${prefix}gw:us:${topic}`,
  /** The session record: user, application, token hash, owning node, where its user stream starts. */
  session: (prefix: string, sessionId: string) => `${prefix}gw:s:${sessionId}`,
  /** The frames the session was sent, numbered (s), with the user-stream entry each came from (u). */
  sessionStream: (prefix: string, sessionId: string) => `${prefix}gw:q:${sessionId}`,
};

/** Settings of the per-user dispatch streams: how many entries and how long they are kept. */
export interface UserStreamSettings {
  maxLen: number;
  ttlMs: number;
}

/** Only per-user topics are streamed: they are what a resumed session must not miss. */
export function isUserTopic(topic: string): boolean {
  return topic.startsWith('u:');
}
