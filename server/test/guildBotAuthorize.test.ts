import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { PageSession, oauthPost, pkce } from './oauthHelpers.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * The OAuth2 `bot` scope: the authorize page lists the guilds the signed-in user manages, shows
 * the permissions asked for, and on Authorize adds the bot with a managed role carrying them.
 */
let t: TestServer;
let browser: PageSession;
let userId: string;
let managed: string;
let notManaged: string;
const PERMS = (Permission.ViewChannel | Permission.SendMessages | Permission.ManageChannels).toString();

beforeAll(async () => {
  t = await startTestServer({ rateLimits: false });
  browser = new PageSession(t.server.url);
  await browser.signUp('guildadmin');
  userId = (await t.server.store.database.db.selectFrom('accounts').select('user_id').where('login', '=', 'guildadmin').executeTakeFirstOrThrow()).user_id;
  const s = guildServicesFor(t.server.store, undefined as never);
  managed = (await s.guilds.createGuild(userId, { name: 'Mine' })).id;
  const other = await t.guest('Other');
  notManaged = (await s.guilds.createGuild(other.userId, { name: 'Theirs' })).id;
  await s.members.join(notManaged, userId);
  await t.server.configureApplication(t.app.id, { redirectUris: ['https://game.example/added'] });
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

const botId = async () => (await t.server.store.applications.get(t.app.id))!.bot_user_id;

describe('OAuth2 bot scope', () => {
  it('shows only the guilds the user manages and the permissions asked for, then adds the bot with its managed role', async () => {
    const page = await browser.get(`/oauth2/authorize?client_id=${t.app.id}&scope=bot&permissions=${PERMS}&guild_id=${managed}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<option value="${managed}" selected>Mine</option>`);
    expect(page.text).not.toContain(notManaged);
    expect(page.text).toContain('ManageChannels');
    expect(page.text).toContain('SendMessages');
    const fields = PageSession.hiddenFields(page.text);
    expect(await t.server.store.guildMembers.isMember(managed, await botId())).toBe(false);
    const r = await browser.post('/oauth2/authorize/bot', { ...fields, guild_id: managed, decision: 'allow' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('was added');
    const member = await t.server.store.guildMembers.get(managed, await botId());
    expect(member).toBeDefined();
    const role = await t.server.store.guilds.role(member!.roles[0]!);
    expect(role).toMatchObject({ managed: 1, permissions: PERMS, bot_user_id: await botId() });
  });

  it('goes back to a registered redirect URI with guild_id, permissions and state', async () => {
    const s = guildServicesFor(t.server.store, undefined as never);
    const g = (await s.guilds.createGuild(userId, { name: 'Second' })).id;
    const page = await browser.get(`/oauth2/authorize?client_id=${t.app.id}&scope=bot&permissions=0&redirect_uri=${encodeURIComponent('https://game.example/added')}&state=xyz`);
    const fields = PageSession.hiddenFields(page.text);
    const r = await browser.post('/oauth2/authorize/bot', { ...fields, guild_id: g, decision: 'allow' });
    expect(r.status).toBe(303);
    const back = new URL(r.location!);
    expect(back.origin + back.pathname).toBe('https://game.example/added');
    expect(Object.fromEntries(back.searchParams)).toEqual({ guild_id: g, permissions: '0', state: 'xyz' });
    const denied = await browser.post('/oauth2/authorize/bot', { ...fields, guild_id: g, decision: 'deny' });
    expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a guild the user does not manage, bad parameters and a forged form; nothing is added', async () => {
    const page = await browser.get(`/oauth2/authorize?client_id=${t.app.id}&scope=bot&permissions=${PERMS}`);
    const fields = PageSession.hiddenFields(page.text);
    const r = await browser.post('/oauth2/authorize/bot', { ...fields, guild_id: notManaged, decision: 'allow' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('Manage Server');
    expect(await t.server.store.guildMembers.isMember(notManaged, await botId())).toBe(false);
    expect((await browser.get(`/oauth2/authorize?client_id=${t.app.id}&scope=bot&permissions=lots`)).status).toBe(400);
    expect((await browser.get(`/oauth2/authorize?client_id=123&scope=bot`)).status).toBe(400);
    expect((await browser.get(`/oauth2/authorize?client_id=${t.app.id}&scope=bot&redirect_uri=${encodeURIComponent('https://evil.example/')}`)).status).toBe(400);
    const forged = await browser.request('POST', '/oauth2/authorize/bot', { ...fields, guild_id: managed, decision: 'allow', csrf: 'wrong' });
    expect(forged.status).toBe(403);
    const crossSite = await browser.request('POST', '/oauth2/authorize/bot', { ...fields, guild_id: managed, decision: 'allow' }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    // Not signed in: to the sign-in page first.
    const anon = new PageSession(t.server.url);
    const signIn = await anon.get(`/oauth2/authorize?client_id=${t.app.id}&scope=bot&permissions=0`);
    expect(signIn.status).toBe(303);
    expect(signIn.location).toContain('/login?next=');
  });
});

describe('OAuth2 bot scope with user scopes (advanced bot authorization)', () => {
  const REDIRECT = 'https://game.example/added';
  const authorizeUrl = (extra: Record<string, string>) =>
    `/oauth2/authorize?${new URLSearchParams({ client_id: t.app.id, scope: 'bot identify guilds', permissions: PERMS, redirect_uri: REDIRECT, ...extra })}`;

  it('adds the bot and returns a code with guild_id and permissions; the token response carries the guild', async () => {
    const s = guildServicesFor(t.server.store, undefined as never);
    const g = (await s.guilds.createGuild(userId, { name: 'With code' })).id;
    const page = await browser.get(authorizeUrl({ response_type: 'code', state: 'st8', guild_id: g }));
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="user-scopes"');
    expect(page.text).toContain('Know which servers you are in');
    const fields = PageSession.hiddenFields(page.text);
    const r = await browser.post('/oauth2/authorize/bot', { ...fields, guild_id: g, decision: 'allow' });
    expect(r.status).toBe(303);
    const back = new URL(r.location!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    const q = Object.fromEntries(back.searchParams);
    expect(q).toEqual({ code: expect.any(String), guild_id: g, permissions: PERMS, state: 'st8' });
    expect(await t.server.store.guildMembers.isMember(g, await botId())).toBe(true);

    const basic = { id: t.app.id, secret: t.app.clientSecret };
    const tok = await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', code: q.code!, redirect_uri: REDIRECT }, basic);
    expect(tok.status).toBe(200);
    expect(tok.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String), expires_in: expect.any(Number), scope: 'bot identify guilds' });
    expect(tok.body.guild).toMatchObject({ id: g, name: 'With code', owner_id: userId, roles: expect.any(Array) });
    expect(tok.body.guild.roles.map((role: any) => role.tags?.bot_id).filter(Boolean)).toEqual([await botId()]);
    // The token is the user's, with the user scopes granted.
    expect((await t.req('GET', '/users/@me', { token: tok.body.access_token })).body.id).toBe(userId);
    expect(((await t.req('GET', '/users/@me/guilds', { token: tok.body.access_token })).body as any[]).map((x) => x.id)).toContain(g);
    // A code is good once.
    const again = await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', code: q.code!, redirect_uri: REDIRECT }, basic);
    expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('carries a PKCE challenge to the code; deny sends access_denied and adds nothing', async () => {
    const s = guildServicesFor(t.server.store, undefined as never);
    const g = (await s.guilds.createGuild(userId, { name: 'PKCE' })).id;
    const p = pkce();
    const page = await browser.get(authorizeUrl({ response_type: 'code', code_challenge: p.challenge, code_challenge_method: 'S256' }));
    const fields = PageSession.hiddenFields(page.text);
    const denied = await browser.post('/oauth2/authorize/bot', { ...fields, guild_id: g, decision: 'deny' });
    expect(Object.fromEntries(new URL(denied.location!).searchParams)).toEqual({ error: 'access_denied' });
    expect(await t.server.store.guildMembers.isMember(g, await botId())).toBe(false);
    const r = await browser.post('/oauth2/authorize/bot', { ...fields, guild_id: g, decision: 'allow' });
    const code = new URL(r.location!).searchParams.get('code')!;
    const basic = { id: t.app.id, secret: t.app.clientSecret };
    const noVerifier = await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, basic);
    expect(noVerifier.body.error).toBe('invalid_grant');
    // That failed attempt did not use the code up: the right verifier still exchanges it.
    const ok = await oauthPost(t, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: p.verifier }, basic);
    expect([ok.status, ok.body.guild?.id]).toEqual([200, g]);
  });

  it('refuses user scopes without response_type=code or a redirect_uri, unknown scopes and bad challenges; nothing is added and no code is made', async () => {
    const s = guildServicesFor(t.server.store, undefined as never);
    const g = (await s.guilds.createGuild(userId, { name: 'Refused' })).id;
    const codesBefore = (await t.server.store.database.db.selectFrom('oauth_codes').select('code_hash').execute()).length;
    const refusals: [Record<string, string>, string][] = [
      [{}, 'response_type=code'],
      [{ response_type: 'token' }, 'response_type=code'],
      [{ response_type: 'code', redirect_uri: '' }, 'redirect_uri'],
      [{ response_type: 'code', scope: 'bot nonsense' }, 'nonsense'],
      [{ response_type: 'code', scope: 'bot identify.premium' }, 'identify.premium'],
      [{ response_type: 'code', code_challenge: 'short', code_challenge_method: 'S256' }, 'code_challenge'],
      [{ response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'plain' }, 'code_challenge'],
    ];
    for (const [extra, says] of refusals) {
      const url = authorizeUrl(extra).replace('redirect_uri=&', '');
      const page = await browser.get(extra.redirect_uri === '' ? url.replace(/&?redirect_uri=[^&]*/, '') : url);
      expect(page.status, JSON.stringify(extra)).toBe(400);
      expect(page.text).toContain(says);
    }
    // The same through the decision form (a hand-made post): refused before anything is written.
    const good = PageSession.hiddenFields((await browser.get(authorizeUrl({ response_type: 'code' }))).text);
    const forged = await browser.post('/oauth2/authorize/bot', { ...good, response_type: '', guild_id: g, decision: 'allow' });
    expect(forged.status).toBe(400);
    expect(await t.server.store.guildMembers.isMember(g, await botId())).toBe(false);
    expect((await t.server.store.database.db.selectFrom('oauth_codes').select('code_hash').execute()).length).toBe(codesBefore);
    // bot with applications.commands alone still needs no code (the plain flow).
    const plain = await browser.get(`/oauth2/authorize?client_id=${t.app.id}&scope=${encodeURIComponent('bot applications.commands')}&permissions=0`);
    expect(plain.status).toBe(200);
    expect(plain.text).not.toContain('id="user-scopes"');
  });
});
