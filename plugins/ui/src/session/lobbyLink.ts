import { ActivityInvite, type Client } from '@social-layer/client';
import { randomHex } from './random.ts';

/**
 * Deep links into the game. Three ways to arrive, all ending at `?lobby=<secret>`:
 * - `?invite=<id>`: an invite's link (ActivityInvite.url): accept it, which gives the join secret;
 * - `?join=<secret>`: a join secret straight away (the mobile `_discord/join?secret=` pattern);
 * - `?lobby=<secret>` or nothing: the lobby named in the URL, or a new random one.
 * The URL is rewritten to `?lobby=<secret>` (replaceState: no reload, no history entry) so the
 * address bar is the invite link and a reload rejoins without accepting again.
 */
export async function lobbySecretFromUrl(client: Pick<Client, 'acceptActivityInvite'>, win: Window = window): Promise<string> {
  const url = new URL(win.location.href);
  const inviteId = url.searchParams.get('invite');
  const joinSecret = url.searchParams.get('join')?.trim();
  let secret = url.searchParams.get('lobby')?.trim() || undefined;
  if (inviteId && /^\d{1,20}$/.test(inviteId)) {
    const invite = new ActivityInvite();
    invite.setMessageId(inviteId);
    secret = await client.acceptActivityInvite(invite);
  } else if (joinSecret) {
    secret = joinSecret;
  }
  secret ??= randomHex(16);
  if (url.href !== lobbyUrl(secret, win)) win.history.replaceState(win.history.state, '', lobbyUrl(secret, win));
  return secret;
}

/** The page URL that joins the lobby with this secret (where an accepted invite takes the player). */
export function lobbyUrl(secret: string, win: Window = window): string {
  const url = new URL(win.location.href);
  for (const key of ['invite', 'join']) url.searchParams.delete(key);
  url.searchParams.set('lobby', secret);
  return url.toString();
}

/** Where this game lives: invites sent from here link back to it (`<url>?invite=<id>`). */
export function launchUrl(win: Window = window): string {
  return `${win.location.origin}${win.location.pathname}`;
}
