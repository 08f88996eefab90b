import { sql } from 'kysely';
import type { Store } from '../storage/Store.ts';
import { ApplicationIntentFlag, Intent } from './intents.ts';

/**
 * Privileged intents and the size of an application (spec, Authentication 10): under 10,000
 * users an application enables them itself (the GATEWAY_*_LIMITED flags, in the portal or with
 * PATCH /applications/@me); at 10,000 it needs an operator's approval (`apps approve-intents`),
 * which lapses after a year. "Users" are the distinct members of the guilds its bot is in plus the
 * users who authorized it (our reading: whom the application can reach).
 */
export const PRIVILEGED_INTENT_USER_THRESHOLD = 10_000;
export const INTENT_APPROVAL_VALIDITY_MS = 365 * 86_400_000;

const LIMITED_FLAGS = BigInt(ApplicationIntentFlag.GatewayGuildMembersLimited | ApplicationIntentFlag.GatewayPresenceLimited | ApplicationIntentFlag.GatewayMessageContentLimited);

export async function applicationUserCount(store: Store, applicationId: string): Promise<number> {
  const app = await store.applications.get(applicationId);
  if (!app) return 0;
  const r = await sql<{ n: string | number }>`
    select count(*) as n from (
      select m.user_id from guild_members m
        where m.guild_id in (select b.guild_id from guild_members b where b.user_id = ${app.bot_user_id}) and m.user_id <> ${app.bot_user_id}
      union
      select a.user_id from oauth_authorizations a where a.application_id = ${applicationId}
    ) reach`.execute(store.database.db);
  return Number(r.rows[0]?.n ?? 0);
}

export async function intentApprovalValid(store: Store, applicationId: string, now = Date.now()): Promise<boolean> {
  const at = (await store.applications.get(applicationId))?.privileged_intents_approved_at;
  return at !== null && at !== undefined && now - Number(at) < INTENT_APPROVAL_VALIDITY_MS;
}

/** Whether the application may hold its GATEWAY_*_LIMITED flags now: under the threshold, or approved within a year. */
export async function mayUseLimitedIntents(store: Store, applicationId: string, now = Date.now()): Promise<boolean> {
  if ((await applicationUserCount(store, applicationId)) < PRIVILEGED_INTENT_USER_THRESHOLD) return true;
  return intentApprovalValid(store, applicationId, now);
}

/** True when `wanted` turns on a GATEWAY_*_LIMITED flag that `current` lacks. */
export function enablesLimitedIntent(current: bigint, wanted: bigint): boolean {
  return ((wanted & ~current) & LIMITED_FLAGS) !== 0n;
}

/** The privileged intents the application's flags allow now, the size rule applied. */
export async function allowedPrivileged(store: Store, applicationId: string, flags: bigint, now = Date.now()): Promise<number> {
  const on = (bit: number) => (flags & BigInt(bit)) !== 0n;
  const approved = await intentApprovalValid(store, applicationId, now);
  // The plain GATEWAY_* flags are the platform's mark of an approved application: they hold while the approval does.
  const limitedOk = (flags & LIMITED_FLAGS) !== 0n ? await mayUseLimitedIntents(store, applicationId, now) : false;
  let allowed = 0;
  if ((on(ApplicationIntentFlag.GatewayGuildMembers) && approved) || (on(ApplicationIntentFlag.GatewayGuildMembersLimited) && limitedOk)) allowed |= Intent.GuildMembers;
  if ((on(ApplicationIntentFlag.GatewayPresence) && approved) || (on(ApplicationIntentFlag.GatewayPresenceLimited) && limitedOk)) allowed |= Intent.GuildPresences;
  if ((on(ApplicationIntentFlag.GatewayMessageContent) && approved) || (on(ApplicationIntentFlag.GatewayMessageContentLimited) && limitedOk)) allowed |= Intent.MessageContent;
  return allowed;
}
