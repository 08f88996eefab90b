import { AuthenticationExternalAuthType, AuthorizationTokenType, Client } from '@social-layer/client';
import { encodeAvatarState, loadPosition, randomSpawn, type AvatarState } from './avatarState.ts';
import { getOrCreateColor, getOrCreateDeviceId, getOrCreateDisplayName } from './identity.ts';
import { launchUrl, lobbySecretFromUrl } from './deepLink.ts';

/** What the server tells the page (`/games/config.json`). */
export interface SampleConfig {
  applicationId: string;
  /** Origin of the Social Layer API, e.g. `http://127.0.0.1:3333`. Default: this page's origin. */
  apiBase?: string;
}

/** A connected player inside a lobby: everything the game scene needs. */
export interface LobbySession {
  client: Client;
  lobbyId: string;
  secret: string;
  userId: string;
  /** This player's avatar as last shared with the lobby. */
  avatar: AvatarState;
}

export async function loadConfig(url = '/games/config.json'): Promise<SampleConfig> {
  const response = await fetch(url, { cache: 'no-store' });
  if (!response.ok) throw new Error(`Could not load ${url}: HTTP ${response.status}`);
  const config = (await response.json()) as Partial<SampleConfig>;
  if (typeof config.applicationId !== 'string' || !config.applicationId) {
    throw new Error(`${url} has no applicationId`);
  }
  return config as SampleConfig;
}

/**
 * Signs in as this device's guest, connects, and joins the lobby named in the URL. Every step
 * is one Client API call; this is the part to copy into a game.
 */
export async function joinLobby(config: SampleConfig, onStep: (text: string) => void = () => {}): Promise<LobbySession> {
  // queueEvents: the client holds its events until runCallbacks(), which the PlayCanvas adapter
  // calls on every app update (pumpCallbacks), so social changes land inside the game loop.
  const client = new Client({ apiBase: config.apiBase ?? location.origin, applicationId: config.applicationId, queueEvents: true });

  onStep('Signing in…');
  const deviceId = getOrCreateDeviceId();
  const token = await client.getProvisionalToken(
    config.applicationId,
    AuthenticationExternalAuthType.DeviceId,
    deviceId,
  );
  await client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);

  onStep('Connecting…');
  await client.connect();
  const name = getOrCreateDisplayName();
  if (client.getCurrentUserV2()?.displayName !== name) {
    await client.updateProvisionalAccountDisplayName(name);
  }

  onStep('Joining the lobby…');
  // Invites sent from here link back to this page (the web meaning of RegisterLaunchCommand).
  client.registerLaunchCommand(config.applicationId, launchUrl());
  const secret = await lobbySecretFromUrl(client);
  const avatar: AvatarState = { ...(loadPosition(secret) ?? randomSpawn()), color: getOrCreateColor() };
  const lobbyId = await client.createOrJoinLobbyWithMetadata(secret, {}, encodeAvatarState(avatar));
  const userId = client.getCurrentUserV2()?.id;
  if (!userId) throw new Error('Connected, but the client has no current user');
  return { client, lobbyId, secret, userId, avatar };
}
