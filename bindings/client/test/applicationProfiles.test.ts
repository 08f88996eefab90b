// Issue 19 end to end: a provisional account created through an external OIDC identity (a real
// `oidc-provider` issuer on 127.0.0.1) shows the issuer's profile through the real client
// (UserHandle.userApplicationProfiles, getUserApplicationProfiles and the NoLock twin), the
// handles are live views that read empty after destroy, a friend's profile comes without its
// provider-issued ID, and the avatar URL the client builds loads a real PNG from the platform.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '@social-layer/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDC_AUDIENCE, OIDC_PICTURE_BASE, startOidcIssuer, type OidcIssuer } from '../../../server/test/oidcIssuer.ts';
import { AuthenticationExternalAuthType, AuthorizationTokenType, AvatarType, Client, ExternalIdentityProviderType } from '../src/index.ts';
import { newDeviceId } from './helpers.ts';

let server: RunningServer;
let oidc: OidcIssuer;
let dataDir: string;
let appId: string;
const clients: Client[] = [];

beforeAll(async () => {
  oidc = await startOidcIssuer();
  dataDir = await mkdtemp(join(tmpdir(), 'sl-client-profiles-'));
  server = await startServer({ port: 0, dataDir, logLevel: 'error', serveSamples: false, accounts: { allowLoopbackOidcIssuers: true } });
  appId = (await server.createApplication({ name: 'Profiles' })).id;
  await server.configureApplication(appId, { oidcIssuers: [{ issuer: oidc.issuer, audience: OIDC_AUDIENCE }] });
});
afterAll(async () => {
  for (const c of clients) await c.destroy();
  await server?.close();
  oidc?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function signedIn(type: AuthenticationExternalAuthType, token: string): Promise<{ client: Client; accessToken: string; userId: string }> {
  const client = new Client({ apiBase: server.url, applicationId: appId });
  clients.push(client);
  const { accessToken } = await client.getProvisionalToken(appId, type, token);
  await client.updateToken(AuthorizationTokenType.Bearer, accessToken);
  const me = (await (await fetch(`${server.url}/api/v10/users/@me`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as { id: string };
  return { client, accessToken, userId: me.id };
}

async function connected(type: AuthenticationExternalAuthType, token: string): Promise<Client> {
  const { client } = await signedIn(type, token);
  await client.connect();
  return client;
}

async function put(path: string, token: string): Promise<void> {
  const res = await fetch(`${server.url}/api/v10${path}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  expect(res.status).toBe(204);
}

/** Width and height from a PNG's signature and IHDR chunk (the server's own test decodes the pixels). */
function pngSize(bytes: Buffer): [number, number] {
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

describe('application profiles through the client', () => {
  it('an OIDC guest sees the issuer\'s profile of its identity; the three ways to ask agree; handles read empty after destroy', async () => {
    const client = await connected(AuthenticationExternalAuthType.OIDC, await oidc.idToken('client-sub-1'));
    const me = client.getCurrentUserV2()!;
    expect(me.isProvisional).toBe(true);
    const profiles = me.userApplicationProfiles();
    expect(profiles).toHaveLength(1);
    const [profile] = profiles;
    expect(profile!.providerType()).toBe(ExternalIdentityProviderType.OIDC);
    expect(profile!.providerId()).toBe(oidc.issuer);
    expect(profile!.providerIssuedUserId()).toBe('client-sub-1');
    expect(profile!.username()).toBe('client-sub-1_at_issuer');
    expect(profile!.avatarHash()).toBe(`${OIDC_PICTURE_BASE}/client-sub-1.png`);
    expect(profile!.metadata()).toBe('');

    const viaClient = client.getUserApplicationProfiles(me.id);
    const viaNoLock = client.getUserApplicationProfilesNoLock(me.id);
    for (const list of [viaClient, viaNoLock]) {
      expect(list.map((p) => [p.providerType(), p.providerId(), p.providerIssuedUserId(), p.username()])).toEqual([
        [ExternalIdentityProviderType.OIDC, oidc.issuer, 'client-sub-1', 'client-sub-1_at_issuer'],
      ]);
    }

    await client.destroy();
    expect(profile!.providerIssuedUserId()).toBe('');
    expect(profile!.username()).toBe('');
    expect(profile!.providerType()).toBe(ExternalIdentityProviderType.None);
  });

  it('a friend\'s profile arrives with READY and shows its name but not its provider-issued ID', async () => {
    const alice = await signedIn(AuthenticationExternalAuthType.OIDC, await oidc.idToken('client-alice'));
    const bob = await signedIn(AuthenticationExternalAuthType.OIDC, await oidc.idToken('client-bob'));
    await put(`/users/@me/relationships/${bob.userId}`, alice.accessToken);
    await put(`/users/@me/relationships/${alice.userId}?type=3`, bob.accessToken);
    await alice.client.connect();
    const bobSeen = alice.client.getUser(bob.userId)!;
    const profiles = bobSeen.userApplicationProfiles();
    expect(profiles.map((p) => [p.providerType(), p.providerId(), p.username(), p.providerIssuedUserId()])).toEqual([
      [ExternalIdentityProviderType.OIDC, oidc.issuer, 'client-bob_at_issuer', ''],
    ]);
    expect(alice.client.getUserApplicationProfiles(bob.userId).map((p) => p.username())).toEqual(['client-bob_at_issuer']);
    expect(alice.client.getCurrentUserV2()!.userApplicationProfiles().map((p) => p.providerIssuedUserId())).toEqual(['client-alice']);
  });

  it('a device-ID guest has no profile (its device ID is a credential); its avatar URL loads a real PNG of the asked size', async () => {
    const client = await connected(AuthenticationExternalAuthType.DeviceId, newDeviceId());
    const me = client.getCurrentUserV2()!;
    expect(me.userApplicationProfiles()).toEqual([]);
    expect(me.avatar).toBeFalsy();
    const url = me.avatarUrl(AvatarType.Gif, AvatarType.Png, 64);
    expect(url).toMatch(new RegExp(`^${server.url}/embed/avatars/[0-5]\\.png\\?size=64$`));
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual([64, 64]);
    const plain = await fetch(me.avatarUrl(AvatarType.Gif, AvatarType.Png));
    expect(plain.status).toBe(200);
    expect(pngSize(Buffer.from(await plain.arrayBuffer()))).toEqual([256, 256]);
  });
});
