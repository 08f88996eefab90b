import { allowedPrivilegedIntents, Intent } from '../guilds/GuildGateway.ts';
import type { Store } from '../storage/Store.ts';

/**
 * Whether a bot's application may read message content it did not write and is not mentioned in
 * (the MESSAGE_CONTENT privileged intent, as the application's flags allow it). One rule for
 * message reads and for guild message search, so the two cannot drift.
 */
export async function appReadsMessageContent(store: Store, applicationId: string): Promise<boolean> {
  const app = await store.applications.get(applicationId);
  if (!app) return false;
  const raw = (app as { flags_new?: string | null }).flags_new;
  const flags = raw ? BigInt(raw) : BigInt(app.flags ?? 0);
  return (allowedPrivilegedIntents(flags) & Intent.MessageContent) !== 0;
}
