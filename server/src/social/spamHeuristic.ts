import { SocialLimits } from '@social-layer/protocol';
import type { Transaction } from 'kysely';
import type { RelationshipRepo } from '../storage/RelationshipRepo.ts';
import type { Database } from '../storage/schema.ts';

/**
 * IsSpamRequest, computed when a friend request is created (the spec only says "the service
 * believes the request is spam"). A request is spam when either:
 * - its sender already sent `spamRequestsPerWindow` (5) or more friend requests, of any kind to
 *   anyone, in the last `spamWindowMs` (10 minutes): a burst that no player clicking names makes;
 * - the recipient rejected a request from the same sender in the last `spamAfterRejectMs` (24 h):
 *   asking again right after a "no" is pestering.
 * The verdict is shown to the recipient only (RelationshipHandle.isSpamRequest) and changes
 * nothing else: the request is delivered either way, so a false positive costs nothing.
 */
export async function isSpamRequest(
  repo: RelationshipRepo,
  tx: Transaction<Database>,
  senderId: string,
  recipientId: string,
  now: number,
): Promise<boolean> {
  const recent = await repo.countRequestsSince(senderId, now - SocialLimits.spamWindowMs, tx);
  if (recent >= SocialLimits.spamRequestsPerWindow) return true;
  return repo.rejectedSince(senderId, recipientId, now - SocialLimits.spamAfterRejectMs, tx);
}
