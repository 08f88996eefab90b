// Application profiles (issue 19, UserApplicationProfileHandle): what the provider of a
// provisional account's external identity says about the player, stored per identity
// (migration 0007), refreshed on every exchange, carried through merge and unmerge, and shown
// on the user's own object (READY, GET /users/@me) and to the application's bot. ID tokens come
// from a real `oidc-provider` issuer on 127.0.0.1 with preferred_username and picture claims.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, RawGateway, startTestServer, type TestServer } from './harness.ts';
import { linkAccount, PageSession } from './oauthHelpers.ts';
import { OIDC_AUDIENCE, OIDC_PICTURE_BASE, startOidcIssuer, type OidcIssuer } from './oidcIssuer.ts';

let t: TestServer;
let oidc: OidcIssuer;
const REDIRECT = 'http://127.0.0.1/callback';

beforeAll(async () => {
  oidc = await startOidcIssuer();
  t = await startTestServer({ accounts: { allowLoopbackOidcIssuers: true } });
  await t.server.configureApplication(t.app.id, { redirectUris: [REDIRECT], oidcIssuers: [{ issuer: oidc.issuer, audience: OIDC_AUDIENCE }] });
});
afterAll(async () => {
  await t?.close();
  oidc?.close();
  cleanupTempDirs();
});

function exchange(idToken: string, type = 'OIDC') {
  return t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: type, external_auth_token: idToken } });
}

async function me(token: string): Promise<any> {
  const r = await t.req('GET', '/users/@me', { token });
  expect(r.status).toBe(200);
  return r.body;
}

const oidcProfile = (sub: string, type = 'OIDC') => ({
  provider_type: type,
  provider_id: oidc.issuer,
  provider_issued_user_id: sub,
  username: `${sub}_at_issuer`,
  avatar_hash: `${OIDC_PICTURE_BASE}/${sub}.png`,
  metadata: null,
});

async function profileRows(): Promise<number> {
  const r = await t.server.store.database.db.selectFrom('application_profiles').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('application profiles from external identities', () => {
  it('an OIDC provisional account shows the issuer\'s profile on its own user object, in READY and to the application\'s bot', async () => {
    const token = (await exchange(await oidc.idToken('prof-1'))).body.access_token as string;
    const self = await me(token);
    expect(self.application_profiles).toEqual([oidcProfile('prof-1')]);
    // The display name still comes from `name`; the profile's username from preferred_username.
    expect(self.global_name).toBe('Player prof-1');

    const gw = await RawGateway.open(t.server);
    const ready = await gw.identify(token);
    gw.ws.close();
    expect(ready.user.id).toBe(self.id);
    expect(ready.user.application_profiles).toEqual([oidcProfile('prof-1')]);

    const own = await t.req('GET', `/users/${self.id}/application-profiles`, { token });
    expect(own.status).toBe(200);
    expect(own.body).toEqual([oidcProfile('prof-1')]);
    const byBot = await t.req('GET', `/users/${self.id}/application-profiles`, { token: t.app.botToken, bot: true });
    expect(byBot.status).toBe(200);
    expect(byBot.body).toEqual([oidcProfile('prof-1')]);
  });

  it('READY names friends and lobby co-members with their profiles, never with their provider-issued IDs', async () => {
    const a = (await exchange(await oidc.idToken('prof-friend-a'))).body.access_token as string;
    const b = (await exchange(await oidc.idToken('prof-friend-b'))).body.access_token as string;
    const bId = (await me(b)).id as string;
    const aId = (await me(a)).id as string;
    expect((await t.req('PUT', `/users/@me/relationships/${bId}`, { token: a, body: {} })).status).toBe(204);
    expect((await t.req('PUT', `/users/@me/relationships/${aId}?type=3`, { token: b, body: {} })).status).toBe(204);
    for (const token of [a, b]) expect((await t.req('PUT', '/lobbies', { token, body: { secret: 'profile-room' } })).status).toBe(200);

    const gw = await RawGateway.open(t.server);
    const ready = await gw.identify(a);
    gw.ws.close();
    const { provider_issued_user_id: _hidden, ...publicB } = oidcProfile('prof-friend-b');
    expect(ready.user.application_profiles).toEqual([oidcProfile('prof-friend-a')]);
    const friend = ready.relationships.find((r: any) => r.user.id === bId);
    expect(friend.user.application_profiles).toEqual([publicB]);
    const lobby = ready.lobbies.find((l: any) => l.members.some((m: any) => m.id === bId));
    expect(lobby.members.find((m: any) => m.id === bId).user.application_profiles).toEqual([publicB]);
    expect(JSON.stringify(ready)).not.toContain('"provider_issued_user_id":"prof-friend-b"');
  });

  it('nobody else sees a profile: another player gets 403 50013; unknown and malformed IDs answer 404 10013', async () => {
    const owner = (await exchange(await oidc.idToken('prof-2'))).body.access_token as string;
    const ownerId = (await me(owner)).id as string;
    const other = await t.guest('Nosy');
    const refused = await t.req('GET', `/users/${ownerId}/application-profiles`, { token: other.token });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(50013);
    expect(JSON.stringify(refused.body)).not.toContain('prof-2');
    const anonymous = await t.req('GET', `/users/${ownerId}/application-profiles`);
    expect(anonymous.status).toBe(401);
    const unknown = await t.req('GET', '/users/123456789012345678/application-profiles', { token: t.app.botToken, bot: true });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(10013);
    const malformed = await t.req('GET', '/users/not-an-id/application-profiles', { token: t.app.botToken, bot: true });
    expect(malformed.status).toBe(404);
    expect(malformed.body.code).toBe(10013);
  });

  it('without the identify scope neither the user nor their game profiles are read (50026)', async () => {
    const token = (await exchange(await oidc.idToken('prof-3'))).body.access_token as string;
    const userId = (await me(token)).id as string;
    const narrow = await t.server.store.tokens.issue(userId, t.app.id, ['lobbies.write'], 60);
    for (const path of ['/users/@me', `/users/${userId}/application-profiles`]) {
      const r = await t.req('GET', path, { token: narrow });
      expect([r.status, r.body.code], path).toEqual([403, 50026]);
    }
  });

  it('each exchange refreshes the profile: the same identity through another ID-token type keeps its account and takes the new provider type', async () => {
    const idToken = await oidc.idToken('prof-4');
    const first = (await exchange(idToken)).body.access_token as string;
    const second = await exchange(idToken, 'EPIC_ONLINE_SERVICES_ID_TOKEN');
    expect(second.status).toBe(200);
    const user = await me(second.body.access_token);
    expect(user.id).toBe((await me(first)).id);
    expect(user.application_profiles).toEqual([oidcProfile('prof-4', 'EPIC_ONLINE_SERVICES')]);
  });

  it('PlayStation Network and game-services (Unity) ID tokens sign the same identity in, each with its provider type', async () => {
    const idToken = await oidc.idToken('prof-6');
    const first = (await exchange(idToken)).body.access_token as string;
    const psn = await exchange(idToken, 'PLAYSTATION_NETWORK_ID_TOKEN');
    expect(psn.status).toBe(200);
    expect((await me(psn.body.access_token)).id).toBe((await me(first)).id);
    expect((await me(psn.body.access_token)).application_profiles).toEqual([oidcProfile('prof-6', 'OIDC')]);
    const unity = await exchange(idToken, 'UNITY_SERVICES_ID_TOKEN');
    expect(unity.status).toBe(200);
    expect((await me(unity.body.access_token)).application_profiles).toEqual([oidcProfile('prof-6', 'UNITY')]);
    // A token that is not a provider's ID token is refused under either type.
    for (const type of ['PLAYSTATION_NETWORK_ID_TOKEN', 'UNITY_SERVICES_ID_TOKEN']) expect((await exchange('not-a-jwt', type)).status, type).toBeGreaterThanOrEqual(400);
  });

  it('device IDs get no profile (a device ID is a credential, never shown as an issued ID)', async () => {
    const before = await profileRows();
    const guest = await t.guest('Device Player');
    expect((await me(guest.token)).application_profiles).toEqual([]);
    expect(await profileRows()).toBe(before);
    const rows = await t.server.store.database.db.selectFrom('application_profiles').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(guest.deviceId);
  });

  it('the game server gives its player\'s profile on the bot route; without one the stored profile stays; bad fields are 50035 and write nothing', async () => {
    const bot = (body: unknown) => t.req('POST', '/partner-sdk/token/bot', { token: t.app.botToken, bot: true, body });
    const given = { username: 'KnightOfNi', avatar_hash: 'abc123', metadata: '{"level":7}' };
    const a = await bot({ external_user_id: 'player-77', application_profile: given });
    expect(a.status).toBe(200);
    const expected = { provider_type: 'DISCORD_BOT', provider_id: t.app.id, provider_issued_user_id: 'player-77', ...given };
    expect((await me(a.body.access_token)).application_profiles).toEqual([expected]);

    const again = await bot({ external_user_id: 'player-77' });
    expect((await me(again.body.access_token)).application_profiles).toEqual([expected]);

    const renamed = await bot({ external_user_id: 'player-77', application_profile: { username: 'Arthur' } });
    expect((await me(renamed.body.access_token)).application_profiles).toEqual([{ ...expected, username: 'Arthur', avatar_hash: null, metadata: null }]);

    const users = await t.server.store.database.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const bad = await bot({ external_user_id: 'player-78', application_profile: { username: '', metadata: 'x'.repeat(4097), extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(50035);
    expect(bad.body.errors.application_profile.username._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
    expect(bad.body.errors.application_profile.metadata._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
    const after = await t.server.store.database.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(users.n));
  });

  it('merging an OIDC guest into a full account carries its profile over; unmerge takes it back to a new guest', async () => {
    const idToken = await oidc.idToken('prof-5');
    const guest = (await exchange(idToken)).body.access_token as string;
    const guestId = (await me(guest)).id as string;

    const s = new PageSession(t.server.url);
    await s.signUp('profmerger', 'merger password 1', 'Merger');
    const linked = await linkAccount(t, s, REDIRECT, { external_auth_type: 'OIDC', external_auth_token: idToken });
    expect(linked.status).toBe(200);
    const full = await me(linked.body.access_token);
    expect(full.id).not.toBe(guestId);
    expect(full.is_provisional).toBe(false);
    expect(full.application_profiles).toEqual([oidcProfile('prof-5')]);
    expect(await t.server.store.users.get(guestId)).toBeUndefined();

    const out = await t.req('POST', '/partner-sdk/provisional-accounts/unmerge', { body: { client_id: t.app.id, external_auth_type: 'OIDC', external_auth_token: idToken } });
    expect(out.status).toBe(204);
    const back = await exchange(idToken);
    const newGuest = await me(back.body.access_token);
    expect(newGuest.id).not.toBe(full.id);
    expect(newGuest.application_profiles).toEqual([oidcProfile('prof-5')]);
    const fullAgain = await t.req('GET', `/users/${full.id}/application-profiles`, { token: t.app.botToken, bot: true });
    expect(fullAgain.body).toEqual([]);
  });

  it('a full account that links an identity no guest held gets that identity\'s profile with the link', async () => {
    const idToken = await oidc.idToken('prof-6');
    const s = new PageSession(t.server.url);
    await s.signUp('proflinker', 'linker password 1', 'Linker');
    const linked = await linkAccount(t, s, REDIRECT, { external_auth_type: 'OIDC', external_auth_token: idToken });
    expect(linked.status).toBe(200);
    expect((await me(linked.body.access_token)).application_profiles).toEqual([oidcProfile('prof-6')]);
  });
});
