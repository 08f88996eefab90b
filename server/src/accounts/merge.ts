import type { Transaction } from 'kysely';
import { snowflakeLess } from '../storage/DirectMessageRepo.ts';
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

/**
 * The social graph (issue 6's tables): friendships and requests, direct-message channels with
 * their messages and invites, the games played and the chosen online status. A row the full
 * account already has (the same friend, a channel with the same person) wins over the
 * provisional account's; a DM channel between the two accounts themselves disappears.
 */
registerMergeStep(async (tx, from, to) => {
  // Relationships, both directions; rows between the two accounts go away.
  await tx.deleteFrom('relationships').where((eb) => eb.or([eb.and([eb('user_id', '=', from), eb('other_id', '=', to)]), eb.and([eb('user_id', '=', to), eb('other_id', '=', from)])])).execute();
  for (const mine of ['user_id', 'other_id'] as const) {
    const rows = await tx.selectFrom('relationships').selectAll().where(mine, '=', from).execute();
    for (const r of rows) {
      const key = { ...r, [mine]: to };
      const clash = await tx.selectFrom('relationships').select('user_id').where('user_id', '=', key.user_id).where('other_id', '=', key.other_id).where('application_id', '=', r.application_id).executeTakeFirst();
      if (clash) await tx.deleteFrom('relationships').where('user_id', '=', r.user_id).where('other_id', '=', r.other_id).where('application_id', '=', r.application_id).execute();
      else await tx.updateTable('relationships').set({ [mine]: to }).where('user_id', '=', r.user_id).where('other_id', '=', r.other_id).where('application_id', '=', r.application_id).execute();
    }
  }
  await tx.updateTable('friend_request_log').set({ sender_id: to }).where('sender_id', '=', from).execute();
  await tx.updateTable('friend_request_log').set({ recipient_id: to }).where('recipient_id', '=', from).execute();

  // DM channels: re-key each to the full account, folding into an existing channel with the same person.
  const channels = await tx.selectFrom('dm_channels').selectAll().where((eb) => eb.or([eb('user_low', '=', from), eb('user_high', '=', from)])).execute();
  for (const ch of channels) {
    const peer = ch.user_low === from ? ch.user_high : ch.user_low;
    if (peer === to) {
      await tx.deleteFrom('dm_channels').where('id', '=', ch.id).execute();
      continue;
    }
    const [low, high] = snowflakeLess(to, peer) ? [to, peer] : [peer, to];
    const existing = await tx.selectFrom('dm_channels').select('id').where('user_low', '=', low).where('user_high', '=', high).executeTakeFirst();
    if (existing) {
      await tx.updateTable('direct_messages').set({ channel_id: existing.id }).where('channel_id', '=', ch.id).execute();
      await tx.updateTable('activity_invites').set({ channel_id: existing.id }).where('channel_id', '=', ch.id).execute();
      await tx.deleteFrom('dm_channels').where('id', '=', ch.id).execute();
    } else {
      await tx.updateTable('dm_channels').set({ user_low: low, user_high: high }).where('id', '=', ch.id).execute();
    }
  }
  await tx.updateTable('direct_messages').set({ author_id: to }).where('author_id', '=', from).execute();
  await tx.updateTable('direct_messages').set({ recipient_id: to }).where('recipient_id', '=', from).execute();
  await tx.updateTable('activity_invites').set({ sender_id: to }).where('sender_id', '=', from).execute();
  await tx.updateTable('activity_invites').set({ recipient_id: to }).where('recipient_id', '=', from).execute();

  const played = await tx.selectFrom('application_players').select('application_id').where('user_id', '=', to).execute();
  if (played.length > 0) await tx.deleteFrom('application_players').where('user_id', '=', from).where('application_id', 'in', played.map((p) => p.application_id)).execute();
  await tx.updateTable('application_players').set({ user_id: to }).where('user_id', '=', from).execute();
  const status = await tx.selectFrom('user_presence_settings').select('user_id').where('user_id', '=', to).executeTakeFirst();
  if (status) await tx.deleteFrom('user_presence_settings').where('user_id', '=', from).execute();
  else await tx.updateTable('user_presence_settings').set({ user_id: to }).where('user_id', '=', from).execute();
});
