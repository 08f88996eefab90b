import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';
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
