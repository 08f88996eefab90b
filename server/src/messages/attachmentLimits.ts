import type { Store } from '../storage/Store.ts';
import { MAX_ATTACHMENT_BYTES } from './attachments.ts';

const MiB = 1024 * 1024;

/**
 * Upload size per file by a guild's boost level (`premium_tier` 0 to 3), as the public platform
 * sizes them: the default until level 2.
 */
export const GUILD_TIER_LIMITS: readonly number[] = [MAX_ATTACHMENT_BYTES, MAX_ATTACHMENT_BYTES, 50 * MiB, 100 * MiB];

/**
 * Upload size per file by the user's paid level (`premium_type`: 1 classic, 2 full, 3 basic). The
 * public full level allows 500 MB; ours stops at 100 MiB because an upload counts against the
 * process's upload budget (http/uploadBudget.ts, 256 MiB by default) in its temporary file until it
 * is stored. An upload must also
 * arrive within the HTTP request timeout (20 s, http/connectionLimits.ts), which on a slow link
 * holds the size a player can really send below these.
 */
export const USER_PREMIUM_LIMITS: Readonly<Record<number, number>> = { 0: MAX_ATTACHMENT_BYTES, 1: 50 * MiB, 2: 100 * MiB, 3: 50 * MiB };

/** The largest limit any upload can have: the multipart readers' hard ceiling. */
export const MAX_ANY_ATTACHMENT_BYTES = Math.max(...GUILD_TIER_LIMITS, ...Object.values(USER_PREMIUM_LIMITS));

/**
 * The spec's `attachment_size_limit`: the default, raised by the guild's boost level or the
 * uploader's paid level, whichever allows more.
 */
export function attachmentSizeLimit(guildTier: number, userPremium: number): number {
  return Math.max(GUILD_TIER_LIMITS[guildTier] ?? MAX_ATTACHMENT_BYTES, USER_PREMIUM_LIMITS[userPremium] ?? MAX_ATTACHMENT_BYTES);
}

/** The limit for one user uploading in one place (a guild channel, or a DM with no guild). */
export async function attachmentSizeLimitFor(store: Store, where: { guildId?: string | null; userId: string }): Promise<number> {
  const [guild, user] = await Promise.all([
    where.guildId ? store.database.db.selectFrom('guilds').select('premium_tier').where('id', '=', where.guildId).executeTakeFirst() : undefined,
    store.database.db.selectFrom('users').select('premium_type').where('id', '=', where.userId).executeTakeFirst(),
  ]);
  return attachmentSizeLimit(Number(guild?.premium_tier ?? 0), Number(user?.premium_type ?? 0));
}
