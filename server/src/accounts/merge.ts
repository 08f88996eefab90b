import type { Transaction } from 'kysely';
import type { Database } from '../storage/schema.ts';

/**
 * One step of merging a provisional account into a full account: moves what `from` owns to `to`
 * inside the merge's transaction. Each feature that keeps per-user rows adds its step here, so
 * a merge carries everything over (spec: relationships, messages and lobby memberships).
 */
export type MergeStep = (tx: Transaction<Database>, fromUserId: string, toUserId: string, applicationId: string) => Promise<void>;

const steps: MergeStep[] = [];

export function registerMergeStep(step: MergeStep): void {
  steps.push(step);
}

export function mergeSteps(): readonly MergeStep[] {
  return steps;
}

/** Lobby memberships: a lobby both were in keeps the full account's row. */
registerMergeStep(async (tx, from, to) => {
  const theirs = await tx.selectFrom('lobby_members').select('lobby_id').where('user_id', '=', to).execute();
  const both = theirs.map((r) => r.lobby_id);
  if (both.length > 0) await tx.deleteFrom('lobby_members').where('user_id', '=', from).where('lobby_id', 'in', both).execute();
  await tx.updateTable('lobby_members').set({ user_id: to }).where('user_id', '=', from).execute();
});

/** Lobby messages keep their history under the full account. */
registerMergeStep(async (tx, from, to) => {
  await tx.updateTable('lobby_messages').set({ author_id: to }).where('author_id', '=', from).execute();
});
