import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';

// A 1x1 PNG, and bytes that claim to be one.
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const NOT_PNG = `data:image/png;base64,${Buffer.from('<svg onload=alert(1)>').toString('base64')}`;

let t: TestServer;
let dev: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  dev = await startTestServer({ dev: true });
});
afterAll(async () => {
  await t.close();
  await dev.close();
  cleanupTempDirs();
});

async function guestOf(s: TestServer, applicationId: string): Promise<string> {
  const r = await s.req('POST', '/partner-sdk/token', { body: { client_id: applicationId, external_auth_type: 'DEVICE_ID', external_auth_token: randomBytes(16).toString('hex') } });
  expect(r.status).toBe(200);
  return r.body.access_token;
}

describe('GET /applications/@me', () => {
  it('answers the Bot token\'s application in the public shape', async () => {
    const r = await t.req('GET', '/applications/@me', { token: t.app.botToken, bot: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: t.app.id,
      name: 'Test Game',
      icon: null,
      description: '',
      bot_public: false,
      bot_require_code_grant: false,
      team: null,
      flags: 0,
      flags_new: '0',
      redirect_uris: [],
      public_client: true,
      social_sdk: { enabled: false, approval: 'approved' },
    });
    expect(r.body.bot).toMatchObject({ bot: true, global_name: 'Test Game' });
  });

  it('counts the guilds its bot is in and the users who authorized it (approximate_guild_count, approximate_user_install_count)', async () => {
    const counts = async () => {
      const r = (await t.req('GET', '/applications/@me', { token: t.app.botToken, bot: true })).body;
      return [r.approximate_guild_count, r.approximate_user_install_count];
    };
    const [guilds, installs] = await counts();
    const owner = await t.guest('counter');
    const services = guildServicesFor(t.server.store, undefined as never);
    const guild = await services.guilds.createGuild(owner.userId, { name: 'Counted' });
    await services.installBot(guild.id, t.app.id, 0n);
    const db = t.server.store.database.db;
    await t.server.store.oauth.grant(db, t.app.id, owner.userId, ['identify']);
    expect(await counts()).toEqual([guilds! + 1, installs! + 1]);
  });

  it('refuses user tokens (403 50001) and bad credentials (401)', async () => {
    const guest = await guestOf(t, t.app.id);
    expect((await t.req('GET', '/applications/@me', { token: guest })).body.code).toBe(50001);
    expect((await t.req('GET', '/applications/@me', { token: 'x'.repeat(43), bot: true })).status).toBe(401);
    expect((await t.req('GET', '/applications/@me')).status).toBe(401);
  });
});

describe('PATCH /applications/@me', () => {
  it('changes the public fields, keeps what it was not sent, and ignores fields it does not know', async () => {
    const app = await t.server.createApplication({ name: 'Patchable' });
    const r = await t.req('PATCH', '/applications/@me', {
      token: app.botToken,
      bot: true,
      body: {
        description: 'A game about patches',
        tags: ['puzzle', 'coop'],
        flags: 1 << 19,
        integration_types_config: { '0': { oauth2_install_params: { scopes: ['bot', 'applications.commands'], permissions: '2048' } }, '1': {} },
        redirect_uris: ['https://game.example/callback', 'http://127.0.0.1/callback', 'patchable:/authorize/callback'],
        cover_image_unknown_to_us: 'ignored',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'Patchable', description: 'A game about patches', tags: ['puzzle', 'coop'], flags: 524288, flags_new: '524288' });
    expect(r.body.redirect_uris).toEqual(['http://127.0.0.1/callback', 'https://game.example/callback', 'patchable:/authorize/callback']);
    expect(r.body.integration_types_config['0'].oauth2_install_params.permissions).toBe('2048');
    expect(r.body).not.toHaveProperty('cover_image_unknown_to_us');
    // Bits past 30 live in flags_new only (a 64-bit string); `flags` keeps the low 32, and a
    // PATCH of `flags` keeps the high ones.
    const high = (1n << 33n) | (1n << 40n);
    await t.server.store.database.db.updateTable('applications').set({ flags_new: (high | 524288n).toString() }).where('id', '=', app.id).execute();
    const wide = await t.req('GET', '/applications/@me', { token: app.botToken, bot: true });
    expect([wide.body.flags, wide.body.flags_new]).toEqual([524288, (high | 524288n).toString()]);
    const kept = await t.req('PATCH', '/applications/@me', { token: app.botToken, bot: true, body: { flags: 0 } });
    expect([kept.body.flags, kept.body.flags_new]).toEqual([0, high.toString()]);
    await t.req('PATCH', '/applications/@me', { token: app.botToken, bot: true, body: { flags: 524288 } });
    const again = await t.req('PATCH', '/applications/@me', { token: app.botToken, bot: true, body: { name: 'Patched' } });
    expect(again.body).toMatchObject({ name: 'Patched', description: 'A game about patches', flags: 524288 });
    expect(again.body.bot.global_name).toBe('Patched');
    // The registered redirect is what the authorize endpoint now accepts.
    expect(await t.server.store.oauth.redirectUris(app.id)).toContain('https://game.example/callback');
  });

  it('refuses every bad field at once with 50035, and writes nothing', async () => {
    const app = await t.server.createApplication({ name: 'Strict' });
    const r = await t.req('PATCH', '/applications/@me', {
      token: app.botToken,
      bot: true,
      body: { description: 'would be fine', flags: 1, redirect_uris: ['http://game.example/callback', 'https://ok.example/cb', 'javascript:alert(1)'], icon: NOT_PNG },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(50035);
    expect(r.body.errors.flags._errors[0].code).toBe('APPLICATION_FLAGS_INVALID');
    expect(r.body.errors.redirect_uris['0']._errors[0].code).toBe('URL_TYPE_INVALID_SCHEME');
    expect(r.body.errors.redirect_uris['2']._errors[0].code).toBe('URL_TYPE_INVALID_SCHEME');
    expect(r.body.errors.redirect_uris).not.toHaveProperty('1');
    expect(r.body.errors.icon._errors[0].code).toBe('IMAGE_INVALID');
    const now = await t.req('GET', '/applications/@me', { token: app.botToken, bot: true });
    expect(now.body).toMatchObject({ description: '', flags: 0, redirect_uris: [], icon: null });
  });

  it('checks types and lengths by the schema (50035 with the field path)', async () => {
    const app = await t.server.createApplication({ name: 'Typed' });
    const cases: [unknown, string][] = [
      [{ description: 'x'.repeat(401) }, 'description'],
      [{ flags: -1 }, 'flags'],
      [{ flags: 2 ** 32 }, 'flags'],
      [{ tags: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'tags'],
      [{ redirect_uris: 'https://one.example/cb' }, 'redirect_uris'],
      [{ name: 'x' }, 'name'],
      [{ public_client: 'yes' }, 'public_client'],
    ];
    for (const [body, field] of cases) {
      const r = await t.req('PATCH', '/applications/@me', { token: app.botToken, bot: true, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe(50035);
      expect(r.body.errors, JSON.stringify(body)).toHaveProperty(field);
    }
    expect((await t.req('PATCH', '/applications/@me', { token: app.botToken, bot: true, raw: '{"description":' })).body.code).toBe(50109);
    expect((await t.req('GET', '/applications/@me', { token: app.botToken, bot: true })).body).toMatchObject({ name: 'Typed', description: '', flags: 0, public_client: true });
  });

  it('stores an icon and serves it at its hash; null removes it', async () => {
    const app = await t.server.createApplication({ name: 'Iconic' });
    const r = await t.req('PATCH', '/applications/@me', { token: app.botToken, bot: true, body: { icon: PNG } });
    expect(r.status).toBe(200);
    expect(r.body.icon).toMatch(/^[0-9a-f]{32}$/);
    const img = await fetch(`${t.server.url}/app-icons/${app.id}/${r.body.icon}.png`);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await img.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    expect((await fetch(`${t.server.url}/app-icons/${app.id}/${'0'.repeat(32)}.png`)).status).toBe(404);
    const cleared = await t.req('PATCH', '/applications/@me', { token: app.botToken, bot: true, body: { icon: null } });
    expect(cleared.body.icon).toBeNull();
    expect((await fetch(`${t.server.url}/app-icons/${app.id}/${r.body.icon}.png`)).status).toBe(404);
  });

  it('in development mode accepts http redirect URIs that production refuses', async () => {
    const app = await dev.server.createApplication({ name: 'Dev' });
    const r = await dev.req('PATCH', '/applications/@me', { token: app.botToken, bot: true, body: { redirect_uris: ['http://game.test:8080/callback', 'http://localhost:5173/cb'] } });
    expect(r.status).toBe(200);
    expect(r.body.redirect_uris).toEqual(['http://game.test:8080/callback', 'http://localhost:5173/cb']);
    const prod = await t.server.createApplication({ name: 'Prod' });
    const refused = await t.req('PATCH', '/applications/@me', { token: prod.botToken, bot: true, body: { redirect_uris: ['http://game.test:8080/callback'] } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.redirect_uris['0']._errors[0].message).toContain('development mode');
  });
});

describe('bot token shape', () => {
  it('is the public shape: the bot user\'s ID in base64 (what client libraries read the bot\'s ID from), a dot, then the secret', async () => {
    const app = await t.server.createApplication({ name: 'Shaped' });
    expect(app.botToken).toMatch(/^[A-Za-z0-9+/]+\.[A-Za-z0-9_-]{43}$/);
    const me = await t.req('GET', '/users/@me', { token: app.botToken, bot: true });
    expect(me.body.bot).toBe(true);
    // discordeno's getBotIdFromToken: BigInt(atob(token.split('.')[0])).
    expect(BigInt(atob(app.botToken.split('.')[0]!)).toString()).toBe(me.body.id);
    // Only the whole token is a credential: the readable ID part alone, or with another secret, is refused.
    const [idPart] = app.botToken.split('.');
    expect((await t.req('GET', '/users/@me', { token: idPart!, bot: true })).status).toBe(401);
    expect((await t.req('GET', '/users/@me', { token: `${idPart}.${'A'.repeat(43)}`, bot: true })).status).toBe(401);
  });
});

describe('bot token reset', () => {
  it('answers a new token once; the old one stops working at once', async () => {
    const app = await t.server.createApplication({ name: 'Resettable' });
    const r = await t.req('POST', '/applications/@me/bot/reset', { token: app.botToken, bot: true });
    expect(r.status).toBe(200);
    expect(r.body.token).toMatch(/^[A-Za-z0-9+/]+\.[A-Za-z0-9_-]{43}$/);
    // The new token still starts with the bot user's ID, as the first one did.
    expect(r.body.token.split('.')[0]).toBe(app.botToken.split('.')[0]);
    expect((await t.req('GET', '/applications/@me', { token: app.botToken, bot: true })).status).toBe(401);
    expect((await t.req('GET', '/applications/@me', { token: r.body.token, bot: true })).body.id).toBe(app.id);
    // By ID: only its own.
    expect((await t.req('POST', `/applications/${t.app.id}/bot/reset`, { token: r.body.token, bot: true })).status).toBe(404);
    expect((await t.req('POST', `/applications/${app.id}/bot/reset`, { token: r.body.token, bot: true })).status).toBe(200);
  });
});

describe('approval: pre-approval budgets', () => {
  it('limits a pre-approval application to 100 lobby and message writes per 2 hours, shared by its players, until an operator approves it', async () => {
    const app = await t.server.createApplication({ name: 'Unapproved', approval: 'pre_approval' });
    // Four players, so the per-caller route budgets (60 per 10 s) never bite first.
    const players = await Promise.all([0, 1, 2, 3].map(() => guestOf(t, app.id)));
    const lobby = await t.req('PUT', '/lobbies', { token: players[0], body: { secret: 'budget-room' } });
    expect(lobby.status).toBe(200);
    expect(lobby.headers.get('x-ratelimit-budget')).toBe('pre-approval');
    expect(lobby.headers.get('x-ratelimit-limit')).toBe('100');
    expect(lobby.headers.get('x-ratelimit-remaining')).toBe('99');
    for (const p of players.slice(1)) expect((await t.req('PUT', '/lobbies', { token: p, body: { secret: 'budget-room' } })).status).toBe(200);
    let last: Awaited<ReturnType<TestServer['req']>> | undefined;
    for (let i = 4; i < 100; i++) {
      last = await t.req('POST', `/lobbies/${lobby.body.id}/messages`, { token: players[i % 4], body: { content: `m${i}` } });
      expect(last.status, `write ${i}`).toBe(200);
    }
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    const over = await t.req('PUT', '/lobbies', { token: players[2], body: { secret: 'another-room' } });
    expect(over.status).toBe(429);
    expect(over.headers.get('x-ratelimit-scope')).toBe('shared');
    expect(over.headers.get('x-ratelimit-budget')).toBe('pre-approval');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(7000);
    expect(over.body).toMatchObject({ message: 'You are being rate limited.', global: false });
    // Refused before the route ran: no lobby was made.
    expect(await t.server.store.database.db.selectFrom('lobbies').select('id').where('application_id', '=', app.id).execute()).toHaveLength(1);
    // Reads are not writes, and other applications are untouched.
    expect((await t.req('GET', `/lobbies/${lobby.body.id}`, { token: players[0] })).status).toBe(200);
    const other = await t.req('PUT', '/lobbies', { token: await guestOf(t, t.app.id), body: { secret: 'elsewhere' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-budget')).toBe('production');

    await t.server.applications.approve(app.id);
    const after = await t.req('PUT', '/lobbies', { token: players[3], body: { secret: 'another-room' } });
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-budget')).toBe('production');
    expect(Number(after.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
  });

  it('covers every lobby and message write route that exists, for Bot and Bearer callers alike', async () => {
    const app = await t.server.createApplication({ name: 'Covered', approval: 'pre_approval' });
    const a = await guestOf(t, app.id);
    const b = await guestOf(t, app.id);
    const bId = (await t.req('GET', '/users/@me', { token: b })).body.id;
    const bot = { token: app.botToken, bot: true };
    const lobby = (await t.req('POST', '/lobbies', { ...bot, body: {} })).body.id as string;
    const writes: [string, string, { token: string; bot?: boolean }, unknown][] = [
      ['PUT', '/lobbies', { token: a }, { secret: 'covered' }],
      ['POST', '/lobbies', bot, {}],
      ['PUT', `/lobbies/${lobby}/members/${bId}`, bot, {}],
      ['POST', `/lobbies/${lobby}/members/bulk`, bot, [{ id: bId }]],
      ['POST', `/lobbies/${lobby}/messages`, { token: b }, { content: 'hello' }],
      ['DELETE', `/lobbies/${lobby}/members/@me`, { token: b }, undefined],
      ['DELETE', `/lobbies/${lobby}/members/${bId}`, bot, undefined],
      ['POST', `/users/${bId}/messages`, { token: a }, { content: 'hi' }],
      ['PATCH', `/users/${bId}/messages/${'1'.repeat(18)}`, { token: a }, { content: 'edited' }],
    ];
    let remaining = 99; // the POST /lobbies above was the first
    for (const [method, path, who, body] of writes) {
      const r = await t.req(method, path, { ...who, ...(body !== undefined ? { body } : {}) });
      expect(r.headers.get('x-ratelimit-budget'), `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`).toBe('pre-approval');
      expect(r.headers.get('x-ratelimit-remaining'), `${method} ${path}`).toBe(String(--remaining));
    }
    // Reads and deletes of whole lobbies are not in the budget.
    expect((await t.req('GET', `/lobbies/${lobby}`, bot)).headers.get('x-ratelimit-budget')).toBeNull();
  });

  it('counts direct messages as message writes too', async () => {
    const app = await t.server.createApplication({ name: 'Chatty', approval: 'pre_approval' });
    const a = await guestOf(t, app.id);
    const r = await t.req('POST', `/users/${'1'.repeat(18)}/messages`, { token: a, body: { content: 'hi' } });
    expect(r.headers.get('x-ratelimit-budget')).toBe('pre-approval');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('99');
  });
});
