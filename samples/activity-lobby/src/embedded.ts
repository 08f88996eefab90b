// The embedded-app side of the activity: the unmodified public @discord/embedded-app-sdk, talking
// to the web app that frames us. ready(), then authorize (the web app asks the player the first
// time), the code exchanged by this activity's backend (it holds the application's secret) behind
// the /api mapping, then authenticate with the access token.
import { DiscordSDK } from '@discord/embedded-app-sdk';

/** What the backend tells the page (`GET /api/config`): the application and where the platform is. */
export interface ActivityConfig {
  client_id: string;
  platform_origin: string;
}

/**
 * The scopes the activity asks for: `identify`, `sdk.social_layer` (this platform's lobby and voice
 * scope, which the public SDK's scope type does not list) and `relationships.read` (getRelationships).
 */
export const SCOPES = ['identify', 'sdk.social_layer', 'relationships.read'];

export interface Embedded {
  sdk: DiscordSDK;
  config: ActivityConfig;
  accessToken: string;
  user: { id: string; username: string; global_name?: string | null };
}

/** Whether this page runs inside a host that launched it (the SDK's query parameters are there). */
export function isLaunched(): boolean {
  return new URLSearchParams(location.search).has('frame_id');
}

/**
 * One authorize + code exchange. The proxy host answers `/.proxy/api/token` and `/api/token` alike
 * (the public platform documents the `/.proxy/` form); the page uses `/.proxy/` by default.
 */
export async function exchangeCode(sdk: DiscordSDK, clientId: string, path = '/.proxy/api/token'): Promise<string> {
  const { code } = await sdk.commands.authorize({ client_id: clientId, response_type: 'code', state: '', prompt: 'none', scope: SCOPES as never });
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  const body = (await response.json()) as { access_token?: string; error?: string };
  if (!response.ok || !body.access_token) throw new Error(`token exchange failed (${body.error ?? response.status})`);
  return body.access_token;
}

/** ready, authorize, exchange, authenticate: the player as the host knows them. */
export async function startEmbedded(onStep: (text: string) => void): Promise<Embedded> {
  const config = (await (await fetch('/.proxy/api/config')).json()) as ActivityConfig;
  const sdk = new DiscordSDK(config.client_id);
  await sdk.ready();
  onStep('Signing in…');
  const accessToken = await exchangeCode(sdk, config.client_id);
  const auth = await sdk.commands.authenticate({ access_token: accessToken });
  return { sdk, config, accessToken, user: auth.user };
}
