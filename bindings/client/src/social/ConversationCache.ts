import { SocialLimits } from '@social-layer/protocol';
import type { MessageRecord } from '../MessageCache.ts';

interface Conversation {
  /** Oldest first; always the newest contiguous run of the conversation's messages. */
  records: MessageRecord[];
  /** True when the run reaches back to the start of the 72-hour history window. */
  complete: boolean;
}

/**
 * The local cache behind GetUserMessagesWithLimit ("uses a local cache when enough messages are
 * cached"). Per conversation it holds the newest messages as one contiguous run: history loaded
 * over HTTP seeds it, live MESSAGE_CREATEs extend it at the newest end, edits and deletes change
 * it in place. A read is served locally when the run holds at least `limit` messages, or holds
 * the whole window. A fresh READY (not a Resume) may have missed messages, so it clears the cache.
 */
export class ConversationCache {
  static readonly maxPerConversation = SocialLimits.directMessagesMaxPerRead;
  private readonly byUser = new Map<string, Conversation>();

  /** Seeds a conversation from an HTTP read (newest first), which returned up to `requested`. */
  seed(otherId: string, newestFirst: MessageRecord[], requested: number): void {
    const live = this.byUser.get(otherId)?.records ?? [];
    const records = [...newestFirst].reverse();
    // Messages that arrived live while the request was in flight are newer than its answer.
    for (const r of live) if (!records.some((x) => x.id === r.id) && isNewer(r, records.at(-1))) records.push(r);
    this.byUser.set(otherId, { records: records.slice(-ConversationCache.maxPerConversation), complete: newestFirst.length < requested });
  }

  /** A live message of the conversation (sent or received). */
  append(otherId: string, record: MessageRecord): void {
    const c = this.byUser.get(otherId) ?? { records: [], complete: false };
    if (c.records.some((r) => r.id === record.id)) return;
    c.records.push(record);
    if (c.records.length > ConversationCache.maxPerConversation) {
      c.records.splice(0, c.records.length - ConversationCache.maxPerConversation);
      c.complete = false;
    }
    this.byUser.set(otherId, c);
  }

  remove(otherId: string, messageId: string): void {
    const c = this.byUser.get(otherId);
    if (c) c.records = c.records.filter((r) => r.id !== messageId);
  }

  /** Newest first, at most `limit`, when the cache can answer; undefined when it must ask the server. */
  read(otherId: string, limit: number, now = Date.now()): MessageRecord[] | undefined {
    const c = this.byUser.get(otherId);
    if (!c) return undefined;
    const fresh = c.records.filter((r) => r.sentTimestamp >= now - SocialLimits.directHistoryMaxAgeMs);
    // Messages that aged out of the window leave the run complete for the window.
    const complete = c.complete || fresh.length < c.records.length;
    if (fresh.length < limit && !complete) return undefined;
    return fresh.slice(-limit).reverse();
  }

  clear(): void {
    this.byUser.clear();
  }
}

function isNewer(a: MessageRecord, than: MessageRecord | undefined): boolean {
  if (!than) return true;
  return a.id.length !== than.id.length ? a.id.length > than.id.length : a.id > than.id;
}
