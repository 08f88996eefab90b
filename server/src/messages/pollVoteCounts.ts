import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';

// The votes table and the per-message counts: read by MessageService (every message it answers
// with a poll) and written by PollVotes, which itself uses MessageService; the shared part lives
// here so the two do not import each other.

/** Table of migration 0019_message_polls: one row per user and chosen answer. */
export interface PollVotesTable {
  message_id: string;
  answer_id: number;
  user_id: string;
  created_at: number | string;
}

declare module '../storage/schema.ts' {
  interface Database {
    channel_message_poll_votes: PollVotesTable;
  }
}

export type AnswerCount = { id: number; count: number; me_voted: boolean };

/** Per message, the answers with votes (answer order) and whether `viewerId` chose each. */
export async function pollCounts(db: Kysely<Database>, messageIds: string[], viewerId: string): Promise<Map<string, AnswerCount[]>> {
  const out = new Map<string, AnswerCount[]>();
  if (messageIds.length === 0) return out;
  const rows = await db.selectFrom('channel_message_poll_votes').select(['message_id', 'answer_id', 'user_id']).where('message_id', 'in', messageIds).execute();
  for (const r of rows) {
    let list = out.get(r.message_id);
    if (!list) out.set(r.message_id, (list = []));
    let c = list.find((x) => x.id === r.answer_id);
    if (!c) list.push((c = { id: r.answer_id, count: 0, me_voted: false }));
    c.count++;
    if (r.user_id === viewerId) c.me_voted = true;
  }
  for (const list of out.values()) list.sort((a, b) => a.id - b.id);
  return out;
}
