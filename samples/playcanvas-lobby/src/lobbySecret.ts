import { randomHex } from './identity.ts';

const PARAM = 'lobby';

/**
 * The lobby to join comes from the page URL (`?lobby=<secret>`): sharing the URL invites a
 * friend. Without one, a fresh secret is made and written into the URL (without a reload or a
 * history entry) so the address bar is the invite link and a reload rejoins the same lobby.
 */
export function getOrCreateLobbySecret(win: Window = window): string {
  const url = new URL(win.location.href);
  const existing = url.searchParams.get(PARAM)?.trim();
  if (existing) return existing;
  const secret = randomHex(16);
  url.searchParams.set(PARAM, secret);
  win.history.replaceState(win.history.state, '', url);
  return secret;
}
