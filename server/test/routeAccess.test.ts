// The credential model held route by route: every /api route in the server's own registry (so a
// new route cannot skip it) is called with each kind of credential, and the answer must be what
// routeAccess.ts declares: a kind or scope the route does not take is refused with the documented
// 403 before the route runs; one it takes reaches the route (which may then answer 400 or 404 for
// the made-up IDs and bodies). And the reproduction of the attack run: a game granted `guilds`
// alone cannot act in the player's guilds, and still lists them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_SCOPES, tokenScopes } from '../src/oauth2/scopes.ts';
import { accessOf, declaredRoutes, type RouteAccess } from '../src/http/routeAccess.ts';
import { cleanupTempDirs, RawGateway, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let userId: string;
let session: string;
const ID = '123456789012345678';

beforeAll(async () => {
  t = await startTestServer({ rateLimits: false });
  userId = (await t.guest('walker')).userId;
  const firstParty = await t.server.store.applications.firstParty();
  session = await t.server.store.tokens.issue(userId, firstParty.id, tokenScopes([...KNOWN_SCOPES]), 3600);
});

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

const gameToken = (scopes: string[]) => t.server.store.tokens.issue(userId, t.app.id, tokenScopes(scopes), 3600);

/** The route's URL with made-up IDs. */
function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, ID).replace(/\*$/, 'x');
}

async function call(method: string, url: string, authorization?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  const hasBody = method !== 'GET' && method !== 'DELETE';
  if (hasBody) headers['content-type'] = 'application/json';
  const res = await fetch(t.server.url + concrete(url), { method, headers, ...(hasBody ? { body: '{}' } : {}) });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

/** The access hook's refusal: 403 with 20001 (a bot), 50001 "this route does not take ..." or 50026 (scope). */
function refusedByAccess(r: { status: number; body: any }): boolean {
  if (r.status !== 403) return false;
  return r.body?.code === 20001 || r.body?.code === 50026 || (r.body?.code === 50001 && String(r.body.message).startsWith('Missing Access: this route does not take'));
}

function apiRoutes(): { method: string; url: string }[] {
  return t.server.httpRoutes().filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD' && r.method !== 'OPTIONS');
}

describe('every API route declares who may call it', () => {
  it('the registry and the table agree, route for route', () => {
    const registered = apiRoutes().map((r) => `${r.method} ${r.url}`).sort();
    const declared = declaredRoutes().map(([k]) => k).sort();
    expect(registered.length).toBeGreaterThan(150);
    expect(registered).toEqual(declared);
  });

  it('no credential: 401 on every route that needs one', async () => {
    const wrong: string[] = [];
    for (const r of apiRoutes()) {
      const access = accessOf(r.method, r.url)!;
      if (access.open) continue;
      const res = await call(r.method, r.url);
      if (res.status !== 401 || res.body?.code !== 0) wrong.push(`${r.method} ${r.url}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a token that does not resolve: 401 everywhere it is read', async () => {
    const wrong: string[] = [];
    for (const r of apiRoutes()) {
      if (accessOf(r.method, r.url)!.open) continue;
      const res = await call(r.method, r.url, `Bearer ${'x'.repeat(43)}`);
      if (res.status !== 401) wrong.push(`${r.method} ${r.url}: ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  const kinds: { name: string; header: () => Promise<string>; admitted: (a: RouteAccess) => boolean }[] = [
    { name: 'a bot token', header: async () => `Bot ${t.app.botToken}`, admitted: (a) => !!(a.open || a.bot) },
    { name: 'the web app session', header: async () => `Bearer ${session}`, admitted: (a) => !!(a.open || a.session) },
    { name: 'a game token with guilds alone', header: async () => `Bearer ${await gameToken(['guilds'])}`, admitted: (a) => !!(a.open || (a.bearer && (a.bearer.length === 0 || a.bearer.includes('guilds')))) },
    {
      name: 'a game token with the SDK scope',
      header: async () => `Bearer ${await gameToken(['sdk.social_layer'])}`,
      admitted: (a) => !!(a.open || (a.bearer && (a.bearer.length === 0 || a.bearer.some((s) => tokenScopes(['sdk.social_layer']).includes(s))))),
    },
  ];
  for (const kind of kinds) {
    it(`${kind.name}: refused exactly where the table says, before the route runs`, async () => {
      const header = await kind.header();
      const wrong: string[] = [];
      let refused = 0;
      for (const r of apiRoutes()) {
        const admitted = kind.admitted(accessOf(r.method, r.url)!);
        const res = await call(r.method, r.url, header);
        if (res.status >= 500) wrong.push(`${r.method} ${r.url}: ${res.status}`);
        else if (admitted === refusedByAccess(res)) wrong.push(`${r.method} ${r.url}: ${admitted ? 'refused' : 'admitted'} (${res.status} ${JSON.stringify(res.body)})`);
        if (!admitted) refused++;
      }
      expect(wrong).toEqual([]);
      expect(refused).toBeGreaterThan(0);
    });
  }

  it('each scope the table names admits its routes, and a token without it is refused with 50026', async () => {
    const wrong: string[] = [];
    for (const r of apiRoutes()) {
      const access = accessOf(r.method, r.url)!;
      if (!access.bearer?.length || access.open) continue;
      const scope = access.bearer[0]!;
      const withIt = await call(r.method, r.url, `Bearer ${await gameToken([scope])}`);
      if (refusedByAccess(withIt)) wrong.push(`${r.method} ${r.url}: ${scope} refused`);
      const without = await call(r.method, r.url, `Bearer ${await gameToken(['email'])}`);
      if (without.status !== 403 || without.body?.code !== 50026) wrong.push(`${r.method} ${r.url}: without ${scope} ${without.status} ${JSON.stringify(without.body)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the OpenAPI document shows each route\'s credential kinds and scopes', async () => {
    const doc = (await call('GET', '/api/v10/openapi.json')).body as { paths: Record<string, Record<string, { security?: unknown }>> };
    const roles = doc.paths['/api/v10/guilds/{guild_id}/roles']!.post!.security;
    expect(roles).toEqual([{ bot: [] }, { session: [] }]);
    expect(doc.paths['/api/v10/users/@me/guilds']!.get!.security).toEqual([{ bot: [] }, { bearer: ['guilds'] }, { session: [] }]);
    expect(doc.paths['/api/v10/users/@me/relationships']!.get!.security).toEqual([{ bearer: ['relationships.read'] }, { session: [] }]);
  });
});

describe('the attack run\'s reproduction: a game granted guilds alone', () => {
  it('cannot create a role in the player\'s guild, read its channels or post as the player, and still lists the guilds', async () => {
    const guild = await t.req('POST', '/guilds', { token: session, body: { name: 'Owned' } });
    expect(guild.status).toBe(201);
    const game = await gameToken(['guilds']);
    const role = await t.req('POST', `/guilds/${guild.body.id}/roles`, { token: game, body: { name: 'game-admin', permissions: '8' } });
    expect(role.status).toBe(403);
    expect(role.body).toEqual({ code: 50001, message: 'Missing Access: this route does not take an OAuth2 token' });
    const channels = await t.req('GET', `/guilds/${guild.body.id}/channels`, { token: game });
    expect(channels.status).toBe(403);
    const text = channels.body.find?.((c: { type: number }) => c.type === 0);
    expect(text).toBeUndefined();
    const owned = await t.req('GET', `/guilds/${guild.body.id}/channels`, { token: session });
    const general = owned.body.find((c: { type: number }) => c.type === 0);
    const post = await t.req('POST', `/channels/${general.id}/messages`, { token: game, body: { content: 'as the owner' } });
    expect(post.status).toBe(403);
    const history = await t.req('GET', `/channels/${general.id}/messages`, { token: session });
    expect(history.body.map((m: { content: string }) => m.content)).not.toContain('as the owner');
    const roles = await t.req('GET', `/guilds/${guild.body.id}/roles`, { token: session });
    expect(roles.body.map((r: { name: string }) => r.name)).not.toContain('game-admin');
    const list = await t.req('GET', '/users/@me/guilds', { token: game });
    expect(list.status).toBe(200);
    expect(list.body.map((g: { id: string }) => g.id)).toContain(guild.body.id);
    // The player's own member object is what guilds.members.read grants, and nothing more.
    expect((await t.req('GET', `/users/@me/guilds/${guild.body.id}/member`, { token: game })).body.code).toBe(50026);
    const reader = await gameToken(['guilds.members.read']);
    const member = await t.req('GET', `/users/@me/guilds/${guild.body.id}/member`, { token: reader });
    expect(member.status).toBe(200);
    expect(member.body.user.id).toBe(userId);
    expect((await t.req('GET', `/guilds/${guild.body.id}/members/${userId}`, { token: reader })).body.code).toBe(50001);
    expect((await t.req('GET', `/users/@me/guilds/${ID}/member`, { token: reader })).status).toBe(404);
  });

  it('a token holding only guilds does not read the user or a lobby', async () => {
    const game = await gameToken(['guilds']);
    expect((await t.req('GET', '/users/@me', { token: game })).body.code).toBe(50026);
    expect((await t.req('GET', `/lobbies/${ID}`, { token: game })).body.code).toBe(50026);
  });
});

describe('no way to a web app session or a wider token from outside', () => {
  it('the platform\'s own client has no OAuth2 or provisional flow: token, device, authorize and partner-sdk refuse it', async () => {
    const web = await t.server.store.applications.firstParty();
    const provisional = await t.req('POST', '/partner-sdk/token', { body: { client_id: web.id, external_auth_type: 'DEVICE_ID', external_auth_token: 'd'.repeat(32) } });
    expect([provisional.status, provisional.body.code]).toEqual([404, 10002]);
    const form = (body: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
    const device = await fetch(`${t.api}/oauth2/device/authorize`, form({ client_id: web.id, scope: 'identify guilds' }));
    expect([device.status, ((await device.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
    const token = await fetch(`${t.api}/oauth2/token`, form({ grant_type: 'client_credentials', client_id: web.id, scope: 'identify' }));
    expect([token.status, ((await token.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
    const page = await fetch(`${t.server.url}/oauth2/authorize?client_id=${web.id}&response_type=code&scope=identify&redirect_uri=${encodeURIComponent('http://127.0.0.1/cb')}`);
    expect(await page.text()).toContain('Unknown application (client_id).');
  });

  it('rpc is for approved applications: an ordinary game cannot ask for it', async () => {
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: t.app.id, scope: 'identify rpc' }) };
    const r = await fetch(`${t.api}/oauth2/device/authorize`, form);
    expect([r.status, ((await r.json()) as { error: string }).error]).toEqual([400, 'invalid_scope']);
  });

  it('a game renames the provisional accounts it made, never a full account', async () => {
    const full = await t.server.accounts.signUp({ login: 'full_person', password: 'correct horse battery staple', displayName: 'Person' });
    if (full === 'taken') throw new Error('taken');
    const game = await t.server.store.tokens.issue(full.id, t.app.id, ['sdk.social_layer'], 3600);
    const r = await t.req('PATCH', '/users/@me', { token: game, body: { global_name: 'Renamed by a game' } });
    expect([r.status, r.body.code]).toEqual([400, 530010]);
    expect((await t.server.store.users.get(full.id))?.global_name).toBe('Person');
  });
});

describe('the Gateway holds a game\'s token to what REST does', () => {
  it('a game token without rpc hears none of the player\'s guilds but its own voice state; the web app and a token with rpc hear them', async () => {
    const owner = (await t.guest('gateway-owner')).userId;
    const web = await t.server.store.tokens.issue(owner, (await t.server.store.applications.firstParty()).id, tokenScopes([...KNOWN_SCOPES]), 3600);
    const guild = (await t.req('POST', '/guilds', { token: web, body: { name: 'Heard' } })).body;
    const channel = (await t.req('GET', `/guilds/${guild.id}/channels`, { token: web })).body.find((c: { type: number }) => c.type === 0);
    await t.server.configureApplication(t.app.id, { approvedScopes: ['rpc'] });
    const intents = 1 | (1 << 9) | (1 << 15);
    const open = async (token: string) => {
      const gw = await RawGateway.open(t.server);
      const ready = await gw.identify(token, intents);
      return { gw, ready };
    };
    const game = await open(await t.server.store.tokens.issue(owner, t.app.id, ['identify', 'guilds'], 3600));
    const companion = await open(await t.server.store.tokens.issue(owner, t.app.id, ['identify', 'guilds', 'rpc'], 3600));
    const site = await open(web);
    expect(game.ready.guilds).toEqual([]);
    expect(companion.ready.guilds).toEqual([{ id: guild.id, unavailable: true }]);
    expect(site.ready.guilds).toEqual([{ id: guild.id, unavailable: true }]);
    await companion.gw.next((f) => f.t === 'GUILD_CREATE');
    expect((await t.req('POST', `/channels/${channel.id}/messages`, { token: web, body: { content: 'for guild members' } })).status).toBe(200);
    await companion.gw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'for guild members');
    await site.gw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'for guild members');
    expect(game.gw.frames.filter((f) => f.t === 'GUILD_CREATE' || f.t === 'MESSAGE_CREATE')).toEqual([]);
    // Its own voice state it does get: the SDK joins a guild voice channel as it joins a lobby call.
    const voice = (await t.req('GET', `/guilds/${guild.id}/channels`, { token: web })).body.find((c: { type: number }) => c.type === 2);
    game.gw.send({ op: 4, d: { guild_id: guild.id, channel_id: voice.id, self_mute: false, self_deaf: false } });
    await game.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === owner && f.d.channel_id === voice.id);
    await site.gw.next((f) => f.t === 'VOICE_STATE_UPDATE' && f.d.user_id === owner && f.d.channel_id === voice.id);
    expect(game.gw.frames.filter((f) => f.t === 'GUILD_CREATE' || f.t === 'MESSAGE_CREATE' || (f.t === 'VOICE_STATE_UPDATE' && f.d.user_id !== owner))).toEqual([]);
    for (const s of [game, companion, site]) s.gw.terminate();
  });
});

describe('scopes that grant a field or one list', () => {
  it('email: the account\'s email on GET /users/@me and in userinfo only with the scope, never claimed verified', async () => {
    const full = await t.server.accounts.signUp({ login: 'mail_person', password: 'correct horse battery staple', displayName: 'Mail', email: 'mail@example.test' });
    if (full === 'taken') throw new Error('taken');
    const withEmail = await t.server.store.tokens.issue(full.id, t.app.id, ['identify', 'email', 'openid'], 3600);
    const without = await t.server.store.tokens.issue(full.id, t.app.id, ['identify', 'openid'], 3600);
    const me = (await t.req('GET', '/users/@me', { token: withEmail })).body;
    expect([me.email, me.verified]).toEqual(['mail@example.test', false]);
    const plain = (await t.req('GET', '/users/@me', { token: without })).body;
    expect(plain.id).toBe(full.id);
    expect('email' in plain || 'verified' in plain).toBe(false);
    expect((await t.req('GET', '/oauth2/userinfo', { token: withEmail })).body).toMatchObject({ sub: full.id, email: 'mail@example.test', email_verified: false });
    expect((await t.req('GET', '/oauth2/userinfo', { token: without })).body.email).toBeUndefined();
    // A guest has no email: null, not a missing field, when the scope asks.
    const guest = await t.guest('no-mail');
    const guestMail = await t.server.store.tokens.issue(guest.userId, t.app.id, ['identify', 'email'], 3600);
    expect((await t.req('GET', '/users/@me', { token: guestMail })).body.email).toBeNull();
  });

  it('applications.entitlements (or the SDK scope) reads the player\'s entitlements; identify alone does not', async () => {
    const path = `/users/@me/applications/${t.app.id}/entitlements`;
    const identify = await t.req('GET', path, { token: await gameToken(['identify']) });
    expect([identify.status, identify.body.code]).toEqual([403, 50026]);
    const scoped = await t.req('GET', path, { token: await gameToken(['identify', 'applications.entitlements']) });
    expect([scoped.status, scoped.body]).toEqual([200, []]);
    expect((await t.req('GET', path, { token: await gameToken(['sdk.social_layer']) })).status).toBe(200);
  });

  it('dm_channels.read is for approved applications and lists the player\'s DMs, nothing else of them', async () => {
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: t.app.id, scope: 'identify dm_channels.read' }) };
    const r = await fetch(`${t.api}/oauth2/device/authorize`, form);
    expect([r.status, ((await r.json()) as { error: string }).error]).toEqual([400, 'invalid_scope']);

    // Granted (as for an approved application): the DM list answers; opening a DM and reading its
    // messages stay closed to the token.
    const friend = (await t.guest('dm-friend')).userId;
    const web = await t.server.store.tokens.issue(userId, (await t.server.store.applications.firstParty()).id, tokenScopes([...KNOWN_SCOPES]), 3600);
    const reader = await gameToken(['identify', 'dm_channels.read']);
    const list = await t.req('GET', '/users/@me/channels', { token: reader });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect((await t.req('GET', '/users/@me/channels', { token: web })).body).toEqual(list.body);
    const open = await t.req('POST', '/users/@me/channels', { token: reader, body: { recipient_id: friend } });
    expect([open.status, open.body.code]).toEqual([403, 50001]);
    expect((await t.req('GET', '/users/@me/channels', { token: await gameToken(['identify']) })).status).toBe(403);
  });
});
