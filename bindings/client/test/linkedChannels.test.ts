// Linked channels end to end (issue 12, "Done means"): game clients in a lobby and a web-app
// user in the linked guild channel exchange messages both ways; edits and deletes follow; a
// second lobby cannot link the same channel; a provisional player's joinLinkedLobbyGuild asks for
// the merge, then gets a single-use invite that works once and expires after an hour (the
// server's linked-channel clock is injected); unlinking stops the mirror. Real server, SQLite,
// real sockets, the real Client.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@social-layer/server';
import { guildServicesFor } from '../../../server/src/guilds/GuildServices.ts';
import { KNOWN_SCOPES, tokenScopes } from '../../../server/src/oauth2/scopes.ts';
import { AdditionalContentType, AuthorizationTokenType, ChannelType, ClientResultError, DisclosureTypes, type Client } from '../src/index.ts';
import { befriend, connectPlayer, type Player, type SocialEnv } from './socialHelpers.ts';
import { waitFor } from './helpers.ts';

const SCOPES = ['openid', 'identify', 'guilds', 'sdk.social_layer', 'sdk.social_layer_presence', 'lobbies.write'];
let now = Date.now();
let server: RunningServer;
let dataDir: string;
let env: SocialEnv;
let owner: Player; // full account: owns the guild, links the lobby from the game
let guest: Player; // provisional player in the same lobby
let webToken: string; // a web-app user in the guild (REST, as the web app does)
let ownerSite: string; // the guild owner's web app session
let webUserId: string;
let guildId: string;
let channelId: string;
let voiceId: string;
let lobbyId: string;
let lobby2Id: string;
const opened: string[] = [];

async function api(method: string, path: string, auth: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/api/v10${path}`, {
    method,
    headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A signed-up person: `token` is the game's, `site` the web app's (what acts in the guild). */
async function fullAccount(login: string): Promise<{ userId: string; token: string; site: string }> {
  const user = await server.accounts.signUp({ login, password: 'correct horse battery staple', displayName: login });
  if (user === 'taken') throw new Error('taken');
  const webApp = await server.store.applications.firstParty();
  return {
    userId: user.id,
    token: await server.store.tokens.issue(user.id, env.app.id, SCOPES, 3600),
    site: await server.store.tokens.issue(user.id, webApp.id, tokenScopes([...KNOWN_SCOPES]), 3600),
  };
}


beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sl-linked-test-'));
  server = await startServer({ port: 0, dataDir, logLevel: 'error', serveSamples: false, presenceGraceMs: 50, linkedChannels: { clock: { now: () => now } } });
  const app = await server.createApplication({ name: 'Linked Game' });
  env = {
    server,
    url: server.url,
    app,
    api,
    close: async () => undefined,
  };
  const ownerAccount = await fullAccount('owner');
  ownerSite = `Bearer ${ownerAccount.site}`;
  owner = await connectPlayer(env, { token: ownerAccount.token });
  owner.client.setAccountPageOpener((url) => {
    opened.push(url);
  });
  guest = await connectPlayer(env, { name: 'Guest' });
  const web = await fullAccount('webuser');
  webToken = `Bearer ${web.site}`;
  webUserId = web.userId;
  const created = await api('POST', '/guilds', `Bearer ${ownerAccount.site}`, { name: 'Guild of Linking' });
  expect(created.status).toBe(201);
  guildId = created.body.id;
  await guildServicesFor(server.store, undefined as never).members.join(guildId, webUserId);
  const channels = (await api('GET', `/guilds/${guildId}/channels`, `Bearer ${ownerAccount.site}`)).body;
  channelId = channels.find((c: any) => c.type === 0).id;
  voiceId = channels.find((c: any) => c.type === 2).id;
  const bot = `Bot ${env.app.botToken}`;
  lobbyId = (await api('POST', '/lobbies', bot, { members: [{ id: owner.userId, flags: 1 }, { id: guest.userId }] })).body.id;
  lobby2Id = (await api('POST', '/lobbies', bot, { members: [{ id: owner.userId, flags: 1 }] })).body.id;
  await waitFor(() => guest.client.getLobbyHandle(lobbyId) && owner.client.getLobbyHandle(lobby2Id), 'both lobbies on the clients');
});

afterAll(async () => {
  await owner?.client.destroy();
  await guest?.client.destroy();
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('linked channels with the client', () => {
  it('lists the guilds and channels a player may link', async () => {
    expect(await owner.client.getUserGuilds()).toEqual([{ id: guildId, name: 'Guild of Linking' }]);
    const channels = await owner.client.getGuildChannels(guildId);
    expect(channels.map((c) => c.position)).toEqual([...channels].map((c) => c.position).sort((a, b) => a - b));
    expect(channels.find((c) => c.id === channelId)).toMatchObject({ name: 'general', type: ChannelType.GuildText, isLinkable: true, isViewableAndWriteableByAllMembers: true, linkedLobby: undefined });
    expect(channels.find((c) => c.id === voiceId)?.isLinkable).toBe(false);
    expect(await guest.client.getUserGuilds()).toEqual([]);
  });

  it('refuses what the rules forbid, with the documented codes', async () => {
    const fail = async (p: Promise<unknown>) => {
      const e = await p.then(() => undefined, (err: unknown) => err);
      expect(e).toBeInstanceOf(ClientResultError);
      return (e as ClientResultError).errorCode;
    };
    expect(await fail(owner.client.linkChannelToLobby(lobbyId, voiceId))).toBe(50024);
    expect(await fail(guest.client.linkChannelToLobby(lobbyId, channelId))).toBe(50013);
    expect(await fail(owner.client.linkChannelToLobby(lobbyId, '1234567890123456789'))).toBe(10003);
    expect(owner.client.getLobbyHandle(lobbyId)!.linkedChannel()).toBeUndefined();
  });

  it('links, and messages go both ways, once, with edits and deletes following', async () => {
    const updatedBefore = guest.events.length;
    await owner.client.linkChannelToLobby(lobbyId, channelId);
    expect(owner.client.getLobbyHandle(lobbyId)!.linkedChannel()).toEqual({ id: channelId, name: 'general', guildId });
    await waitFor(() => guest.client.getLobbyHandle(lobbyId)!.linkedChannel(), 'the guest sees the link');
    expect(guest.client.getChannelHandle(lobbyId)?.type()).toBe(ChannelType.Lobby);
    expect(guest.client.getChannelHandle(lobbyId)?.name()).toBe('general');
    void updatedBefore;

    // A second lobby cannot link the same channel.
    const taken = await owner.client.linkChannelToLobby(lobby2Id, channelId).then(() => undefined, (e: ClientResultError) => e);
    expect(taken?.errorCode).toBe(50035);

    // Game -> web app.
    const sentId = await guest.client.sendLobbyMessage(lobbyId, 'hello from the game');
    const inChannel = (await api('GET', `/channels/${channelId}/messages`, webToken)).body;
    expect(inChannel.map((m: any) => [m.content, m.author.id, m.application_id])).toEqual([['hello from the game', guest.userId, env.app.id]]);
    // The disclosure notice comes first, once.
    const created = await waitFor(() => {
      const ids = guest.events.filter((e) => e[0] === 'messageCreated').map((e) => e[1] as string);
      return ids.includes(sentId) ? ids : undefined;
    }, 'the guest hears its own message');
    const notice = guest.client.getMessageHandle(created[created.indexOf(sentId) - 1]!)!;
    expect(notice.disclosureType()).toBe(DisclosureTypes.MessageDataVisibleOnDiscord);
    expect(notice.content()).toContain('#general');
    const mine = guest.client.getMessageHandle(sentId)!;
    expect(mine.sentFromGame()).toBe(true);
    expect(mine.channel()?.type()).toBe(ChannelType.Lobby);
    expect(guest.client.canOpenMessageInDiscord(sentId)).toBe(true);

    // Web app -> game.
    const posted = (await api('POST', `/channels/${channelId}/messages`, webToken, { content: 'hello from the web' })).body;
    const fromWeb = await waitFor(() => {
      for (const e of owner.events) {
        if (e[0] !== 'messageCreated') continue;
        const h = owner.client.getMessageHandle(e[1] as string);
        if (h?.content() === 'hello from the web') return h;
      }
      return undefined;
    }, 'the web message in the game');
    expect(fromWeb.sentFromGame()).toBe(false);
    expect(fromWeb.authorId).toBe(webUserId);
    expect(fromWeb.lobbyId).toBe(lobbyId);
    expect(fromWeb.linkedMessage()).toEqual({ id: posted.id, channelId, guildId, origin: 'channel' });
    // Exactly once on each side.
    expect(owner.events.filter((e) => e[0] === 'messageCreated' && owner.client.getMessageHandle(e[1] as string)?.content() === 'hello from the web')).toHaveLength(1);
    expect((await api('GET', `/channels/${channelId}/messages`, webToken)).body).toHaveLength(2);

    // Open it in the web app.
    await owner.client.openMessageInDiscord(fromWeb.id, null);
    expect(opened.at(-1)).toBe(`${server.url}/app/guilds/${guildId}/channels/${channelId}?message=${posted.id}`);

    // Edit and delete follow.
    await api('PATCH', `/channels/${channelId}/messages/${posted.id}`, webToken, { content: 'edited in the web app' });
    await waitFor(() => owner.events.some((e) => e[0] === 'messageUpdated' && e[1] === fromWeb.id), 'messageUpdated');
    expect(fromWeb.content()).toBe('edited in the web app');
    expect(fromWeb.editedTimestamp()).toBeGreaterThan(0);
    await api('DELETE', `/channels/${channelId}/messages/${posted.id}`, webToken);
    await waitFor(() => owner.events.some((e) => e[0] === 'messageDeleted' && e[1] === fromWeb.id && e[2] === lobbyId), 'messageDeleted');
    expect(owner.client.getMessageHandle(fromWeb.id)).toBeUndefined();

    // What a lobby cannot show comes as additional content.
    await api('POST', `/channels/${channelId}/messages`, webToken, { embeds: [{ title: 'High score', description: '9001' }] });
    const embed = await waitFor(() => {
      for (const e of guest.events) {
        const h = e[0] === 'messageCreated' ? guest.client.getMessageHandle(e[1] as string) : undefined;
        if (h?.additionalContent()) return h;
      }
      return undefined;
    }, 'the embed message');
    expect(embed.additionalContent()).toEqual({ type: AdditionalContentType.Embed, title: 'High score', count: 1 });
    guest.client.setShowingChat(true);
    expect(guest.client.isShowingChat()).toBe(true);
  });

  it('joinLinkedLobbyGuild asks a provisional player to merge, then gives a single-use invite valid one hour', async () => {
    let asked = 0;
    let fullUserId = '';
    let fullToken = '';
    const url = await guest.client.joinLinkedLobbyGuild(lobbyId, () => {
      asked++;
      void (async () => {
        // What a game does here: the account-linking flow with merge (GetTokenFromProvisionalMerge).
        const full = await fullAccount('merged-guest');
        await server.store.database.db.transaction().execute((tx) => server.accounts.mergeIn(tx, env.app.id, 'DEVICE_ID', guest.deviceId, full.userId));
        fullUserId = full.userId;
        fullToken = full.site;
        await guest.client.updateToken(AuthorizationTokenType.Bearer, full.token);
        guest.client.provisionalUserMergeCompleted(true);
      })();
    });
    expect(asked).toBe(1);
    const code = /\/app\/invite\/([A-Za-z0-9]+)$/.exec(url)![1]!;
    expect(url.startsWith(`${server.url}/app/invite/`)).toBe(true);
    // The merged account is in the lobby now; the invite is theirs, and works once.
    const accepted = await api('POST', `/invites/${code}`, `Bearer ${fullToken}`);
    expect(accepted.status).toBe(200);
    expect(await server.store.guildMembers.isMember(guildId, fullUserId)).toBe(true);
    expect((await api('GET', `/invites/${code}`, `Bearer ${fullToken}`)).body.code).toBe(10006);

    // One made 61 minutes ago (by the server's injected clock) no longer works.
    await api('DELETE', `/guilds/${guildId}/members/${fullUserId}`, ownerSite);
    // The game reconnects as the merged account: no merge is asked for any more.
    await guest.client.disconnect();
    await guest.client.connect();
    expect(guest.client.getCurrentUserV2()?.isProvisional).toBe(false);
    now = Date.now() - 61 * 60_000;
    const stale = await guest.client.joinLinkedLobbyGuild(lobbyId, null);
    now = Date.now();
    const staleCode = /\/app\/invite\/([A-Za-z0-9]+)$/.exec(stale)![1]!;
    expect((await api('POST', `/invites/${staleCode}`, `Bearer ${fullToken}`)).body.code).toBe(10006);
    expect(await server.store.guildMembers.isMember(guildId, fullUserId)).toBe(false);

    // A merge that does not complete aborts the call.
    const other = await connectPlayer(env, { name: 'Other' });
    await api('PUT', `/lobbies/${lobbyId}/members/${other.userId}`, `Bot ${env.app.botToken}`, {});
    await waitFor(() => other.client.getLobbyHandle(lobbyId), 'the other player in the lobby');
    const aborted = await other.client.joinLinkedLobbyGuild(lobbyId, () => other.client.provisionalUserMergeCompleted(false)).then(() => undefined, (e: ClientResultError) => e);
    expect(aborted).toBeInstanceOf(ClientResultError);
    await other.client.destroy();
  });

  it('channel handles for DMs', async () => {
    const other = await connectPlayer(env, { name: 'Pen Pal' });
    await befriend(owner, other, waitFor);
    const dmId = await owner.client.sendUserMessage(other.userId, 'a direct message');
    const dm = owner.client.getMessageHandle(dmId)!;
    const handle = owner.client.getChannelHandle(dm.channelId)!;
    expect([ChannelType.Dm, ChannelType.EphemeralDm]).toContain(handle.type());
    expect(handle.recipients()).toEqual([owner.userId, other.userId]);
    expect(handle.name()).toBe('Pen Pal');
    expect(dm.channel()?.type()).toBe(handle.type());
    expect(owner.client.canOpenMessageInDiscord(dmId)).toBe(false);
    expect(owner.client.getChannelHandle('1234567890123456789')).toBeUndefined();
    await other.client.destroy();
  });

  it('unlinking stops the mirror', async () => {
    await owner.client.unlinkChannelFromLobby(lobbyId);
    expect(owner.client.getLobbyHandle(lobbyId)!.linkedChannel()).toBeUndefined();
    const before = (await api('GET', `/channels/${channelId}/messages?limit=100`, webToken)).body.length;
    await owner.client.sendLobbyMessage(lobbyId, 'after unlink');
    await api('POST', `/channels/${channelId}/messages`, webToken, { content: 'web after unlink' });
    expect((await api('GET', `/channels/${channelId}/messages?limit=100`, webToken)).body.length).toBe(before + 1);
    // Channel-to-lobby copies are queued after the answer: let any land before checking there is none.
    await server.drainLinkedChannels();
    const history = await owner.client.getLobbyMessagesWithLimit(lobbyId, 50);
    expect(history.map((m) => m.content())).toContain('after unlink');
    expect(history.map((m) => m.content())).not.toContain('web after unlink');
    // Now the second lobby may link it.
    await owner.client.linkChannelToLobby(lobby2Id, channelId);
    expect(owner.client.getLobbyHandle(lobby2Id)!.linkedChannel()?.id).toBe(channelId);
  });
});
