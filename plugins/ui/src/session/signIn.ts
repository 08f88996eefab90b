import {
  AuthenticationExternalAuthType,
  AuthorizationArgs,
  AuthorizationTokenType,
  Client,
  ClientResultError,
} from '@social-layer/client';
import type { GameStorage } from './GameStorage.ts';
import { randomHex } from './random.ts';

const DEVICE_ID = 'deviceId';
const REFRESH_TOKEN = 'refreshToken';

/** Whether this player signed in with a full account on this device (a refresh token is kept). */
export function hasFullAccount(storage: GameStorage): boolean {
  return storage.get(REFRESH_TOKEN) !== undefined;
}

/**
 * Gives the client a token: the full account this device signed in with (its refresh token is
 * kept, and turned into a fresh pair on every start), otherwise this device's guest account (a
 * provisional account keyed by a random device ID kept in storage: the same browser is the same
 * guest after a reload or a restart). A refresh token the server no longer takes (revoked, or
 * the account unlinked) is dropped and the player is a guest again.
 */
export async function signIn(client: Client, applicationId: string, storage: GameStorage): Promise<void> {
  const refresh = storage.get(REFRESH_TOKEN);
  if (refresh) {
    try {
      const tokens = await client.refreshToken(applicationId, refresh);
      storage.set(REFRESH_TOKEN, tokens.refreshToken);
      await client.updateToken(AuthorizationTokenType.Bearer, tokens.accessToken);
      return;
    } catch (error) {
      if (!(error instanceof ClientResultError) || error.retryable) throw error;
      storage.remove(REFRESH_TOKEN);
    }
  }
  const deviceId = storage.getOrCreate(DEVICE_ID, () => randomHex(16), (id) => /^[0-9a-f]{32}$/.test(id));
  const token = await client.getProvisionalToken(applicationId, AuthenticationExternalAuthType.DeviceId, deviceId);
  await client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
}

/**
 * "Sign in to keep your progress": opens the platform's authorize page in a popup (log in or
 * create an account there), then exchanges the code with the provisional merge, which moves this
 * device's guest account (friends, messages, lobbies) into the full account. The refresh token
 * is kept so the next start signs in as the full account. Rejects with the client's error
 * (Aborted when the player closes the popup).
 */
export async function linkAccount(client: Client, applicationId: string, storage: GameStorage): Promise<void> {
  const deviceId = storage.get(DEVICE_ID);
  if (!deviceId) throw new Error('linkAccount: this device has no guest account to keep');
  const verifier = client.createAuthorizationCodeVerifier();
  const args = new AuthorizationArgs();
  args.setClientId(applicationId);
  args.setScopes(Client.getDefaultCommunicationScopes());
  args.setCodeChallenge(verifier.challenge());
  const { code, redirectUri } = await client.authorize(args);
  const tokens = await client.getTokenFromProvisionalMerge(
    applicationId,
    code,
    verifier.verifier(),
    redirectUri,
    AuthenticationExternalAuthType.DeviceId,
    deviceId,
  );
  storage.set(REFRESH_TOKEN, tokens.refreshToken);
}

/**
 * Whether this page is the authorize popup coming back (`?code=` or `?error=` with `state`, in a
 * window that has an opener): the game must not start there, the opener reads the URL and closes it.
 */
export function isAuthorizeReturn(win: Window = window): boolean {
  const params = new URL(win.location.href).searchParams;
  return Boolean(win.opener) && params.has('state') && (params.has('code') || params.has('error'));
}
