import { sql } from 'kysely';
import type { OpenDatabase } from '../storage/database.ts';

/**
 * Runs a periodic job on one node of the cluster at a time (issue 18). On PostgreSQL the job runs
 * inside a transaction that holds `pg_try_advisory_xact_lock` on the job's name: a node that finds
 * it held skips this round (the holder is doing the work) instead of waiting, and the lock goes
 * with the transaction, so a node that dies mid-run frees it at once. The job itself may use any
 * connection; what it commits before the lock is released is what the next holder reads, so a
 * second node never repeats a deletion (and its dispatch) that the first one made.
 *
 * The key includes the connection's schema: clusters (and test files) that share one database in
 * different schemas do not skip each other's jobs. On SQLite there is one node: the job just runs.
 *
 * Returns the job's result, or `skipped` when another node held the lock.
 */
export async function runOnce<T>(database: OpenDatabase, name: string, job: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
  if (database.dialect !== 'postgres') return { ran: true, value: await job() };
  return database.db.transaction().execute(async (tx) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(current_schema() || ${`:social-layer:${name}`})) as locked`.execute(tx);
    if (!rows[0]?.locked) return { ran: false as const };
    return { ran: true as const, value: await job() };
  });
}
