// Three real clients against the real server: game invites (accept into the same lobby, by the
// invite and by its deep link, join requests, validity, cover fallback, sibling applications)
// (siblings: socialSiblings.test.ts) and direct messages (send with metadata, edit, delete, summaries, history from the local
// cache, every MessageHandle field, moderation metadata, additional names, who may message whom).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Activity,
  ActivityActionTypes,
  ActivityInvite,
  ActivityParty,
  ActivitySecrets,
  ClientResultError,
  ErrorType,
  type MessageHandle,
} from '../src/index.ts';
import { newSecret, waitFor } from './helpers.ts';
import { befriend, connectPlayer, eventsOf, startSocialEnv, type Player, type SocialEnv } from './socialHelpers.ts';

let env: SocialEnv;
const players: Player[] = [];

beforeAll(async () => {
  env = await startSocialEnv();
});
afterAll(async () => {
  for (const p of players) await p.client.destroy();
  await env?.close();
});

async function player(name: string, opts: Parameters<typeof connectPlayer>[1] = {}): Promise<Player> {
  const p = await connectPlayer(env, { name, ...opts });
  players.push(p);
  return p;
}

async function rejection(promise: Promise<unknown>): Promise<ClientResultError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ClientResultError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** The canonical flow's first half: be in a lobby and say so in rich presence with a join secret. */
async function hostParty(p: Player, size: [number, number] = [1, 4]): Promise<{ lobbyId: string; secret: string }> {
  const secret = newSecret();
  const lobbyId = await p.client.createOrJoinLobby(secret);
  const activity = new Activity();
  activity.setState('In a party');
  const party = new ActivityParty();
  party.setId(`party-${lobbyId}`);
  party.setCurrentSize(size[0]);
  party.setMaxSize(size[1]);
  activity.setParty(party);
  const secrets = new ActivitySecrets();
  secrets.setJoin(secret);
  activity.setSecrets(secrets);
  await p.client.updateRichPresence(activity);
  return { lobbyId, secret };
}

function invitesOf(p: Player): ActivityInvite[] {
  return eventsOf(p, 'activityInviteCreated').map(([i]) => i as ActivityInvite);
}

describe('invites with three clients', { timeout: 30_000 }, () => {
  it('an invite accepted into the same lobby, then by deep link; validity and the cover fallback', async () => {
    const host = await player('Host');
    const guest = await player('Gail');
    const third = await player('Tess');
    await befriend(host, guest, waitFor);
    await befriend(host, third, waitFor);
    expect((await env.api('PATCH', '/applications/@me/social-settings', `Bot ${env.app.botToken}`, { cover_image: 'app-cover', launch_url: 'https://play.example.com/games/social/' })).status).toBe(200);

    // No party yet: nothing to invite to.
    expect((await rejection(host.client.sendActivityInvite(guest.userId, ''))).errorCode).toBe(80020);

    const { lobbyId } = await hostParty(host);
    const received: ActivityInvite[] = [];
    guest.client.setActivityInviteCreatedCallback((invite) => received.push(invite));
    await host.client.sendActivityInvite(guest.userId, 'come play');
    const invite = await waitFor(() => received[0], 'the invite');
    expect(invite.type()).toBe(ActivityActionTypes.Join);
    expect(invite.senderId()).toBe(host.userId);
    expect(invite.applicationId()).toBe(env.app.id);
    expect(invite.parentApplicationId()).toBe('0');
    expect(invite.partyId()).toBe(`party-${lobbyId}`);
    expect(invite.sessionId()).toMatch(/^[0-9a-f]{32}$/);
    expect(invite.channelId()).toMatch(/^\d+$/);
    expect(invite.isValid()).toBe(true);
    expect(invite.content()).toBe('come play');
    expect(invite.coverImage()).toBe('app-cover'); // the activity set none: the application's cover
    expect(invite.url()).toBe(`https://play.example.com/games/social/?invite=${invite.messageId()}`);
    // Invites are not chat messages.
    expect(eventsOf(guest, 'messageCreated')).toEqual([]);

    // Accept -> join secret -> createOrJoinLobby: the same lobby.
    const joinSecret = await guest.client.acceptActivityInvite(invite);
    expect(await guest.client.createOrJoinLobby(joinSecret)).toBe(lobbyId);
    await waitFor(() => host.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(guest.userId), 'the guest in the host lobby');

    // Deep link: the third player gets an invite, opens its URL on another device of the same
    // account (a fresh client), which reads ?invite= and joins.
    await host.client.sendActivityInvite(third.userId, '');
    const thirdInvite = await waitFor(() => invitesOf(third)[0], 'the third invite');
    const link = new URL(thirdInvite.url()!);
    const otherDevice = await player('Tess', { deviceId: third.deviceId });
    expect(otherDevice.userId).toBe(third.userId);
    const fromLink = new ActivityInvite();
    fromLink.setMessageId(link.searchParams.get('invite')!);
    const linkSecret = await otherDevice.client.acceptActivityInvite(fromLink);
    expect(await otherDevice.client.createOrJoinLobby(linkSecret)).toBe(lobbyId);
    // Someone else cannot use the link.
    expect((await rejection(guest.client.acceptActivityInvite(fromLink))).errorCode).toBe(10006);

    // The host leaves the party: the invites turn invalid, and accepting fails.
    await host.client.clearRichPresence();
    const updated = await waitFor(() => eventsOf(third, 'activityInviteUpdated').map(([i]) => i as ActivityInvite).find((i) => i.messageId() === thirdInvite.messageId()), 'the invite update');
    expect(updated.isValid()).toBe(false);
    expect((await rejection(third.client.acceptActivityInvite(thirdInvite))).errorCode).toBe(80021);

    // A full party cannot be invited to.
    const full = await hostParty(host, [4, 4]);
    expect((await rejection(host.client.sendActivityInvite(third.userId, ''))).errorCode).toBe(80022);
    await host.client.leaveLobby(full.lobbyId);
  });

  it('join requests: ask a friend with room, get let in with a reply invite, join the lobby', async () => {
    const host = await player('Hugo');
    const asker = await player('Ash');
    await befriend(host, asker, waitFor);
    const { lobbyId } = await hostParty(host, [1, 8]);
    await asker.client.sendActivityJoinRequest(host.userId);
    const request = await waitFor(() => invitesOf(host).find((i) => i.type() === ActivityActionTypes.JoinRequest), 'the join request');
    expect(request.senderId()).toBe(asker.userId);
    expect((await rejection(host.client.acceptActivityInvite(request))).type).toBe(ErrorType.ValidationError);
    await host.client.sendActivityJoinRequestReply(request);
    const invite = await waitFor(() => invitesOf(asker).find((i) => i.type() === ActivityActionTypes.Join), 'the reply invite');
    expect(await asker.client.createOrJoinLobby(await asker.client.acceptActivityInvite(invite))).toBe(lobbyId);
  });
});

describe('direct messages with three clients', { timeout: 30_000 }, () => {
  it('send with metadata, edit, delete, events and every MessageHandle field; another user\'s message cannot be edited', async () => {
    const a = await player('Dina');
    const b = await player('Ezra');
    const c = await player('Finn');
    await befriend(a, b, waitFor);
    const id = await a.client.sendUserMessageWithMetadata(b.userId, 'hello Ezra', { mood: 'cheerful' });
    const own = a.client.getMessageHandle(id)!;
    expect(own.content()).toBe('hello Ezra');
    await waitFor(() => eventsOf(b, 'messageCreated').some(([m]) => m === id), 'B to get the DM');
    await waitFor(() => eventsOf(a, 'messageCreated').some(([m]) => m === id), 'A to get the echo');
    expect(eventsOf(a, 'messageCreated').filter(([m]) => m === id)).toHaveLength(1);
    const m = b.client.getMessageHandle(id)!;
    expect(m.authorId).toBe(a.userId);
    expect(m.author()?.displayName).toBe('Dina');
    expect(m.recipientId).toBe(b.userId);
    expect(m.recipient()?.id).toBe(b.userId);
    expect(m.channelId).toMatch(/^\d+$/);
    expect(m.lobbyId).toBe('0');
    expect(m.lobby()).toBeUndefined();
    expect(m.applicationId).toBe(env.app.id);
    expect(m.metadata()).toEqual({ mood: 'cheerful' });
    expect(m.moderationMetadata()).toEqual({});
    expect(m.additionalName()).toBeUndefined();
    expect(m.editedTimestamp()).toBe(0);
    expect(m.sentTimestamp).toBeGreaterThan(Date.now() - 60_000);
    expect(m.sentFromGame()).toBe(true);
    expect(m.rawContent()).toBe('hello Ezra');

    // Only the author may edit: B's attempt fails with 50005 and changes nothing.
    const notYours = await rejection(b.client.editUserMessage(a.userId, id, 'edited by Ezra'));
    expect([notYours.status, notYours.errorCode]).toEqual([403, 50005]);
    expect((await rejection(b.client.deleteUserMessage(a.userId, id))).errorCode).toBe(50003);
    await a.client.editUserMessage(b.userId, id, 'hello again, Ezra');
    await waitFor(() => eventsOf(b, 'messageUpdated').some(([x]) => x === id), 'B to see the edit');
    expect(m.content()).toBe('hello again, Ezra'); // the handle taken earlier shows it
    expect(m.editedTimestamp()).toBeGreaterThan(0);

    // The game backend attaches moderation metadata (the game-DM endpoint, Bot token).
    const mod = await env.api('PUT', `/channels/${m.channelId}/messages/${id}/moderation-metadata`, `Bot ${env.app.botToken}`, { reviewed: 'yes' });
    expect(mod.status).toBe(204);
    await waitFor(() => m.moderationMetadata().reviewed === 'yes', 'moderation metadata');

    // C is neither friend nor co-member: refused, and B hears nothing.
    expect((await rejection(c.client.sendUserMessage(b.userId, 'hi stranger'))).errorCode).toBe(50007);
    // Content limits are checked before any request.
    expect((await rejection(a.client.sendUserMessage(b.userId, ''))).type).toBe(ErrorType.ValidationError);
    expect((await rejection(a.client.sendUserMessage(b.userId, 'x'.repeat(2001)))).type).toBe(ErrorType.ValidationError);

    const summaries = await b.client.getUserMessageSummaries();
    expect(summaries.map((s) => [s.userId, s.lastMessageId])).toEqual([[a.userId, id]]);

    await a.client.deleteUserMessage(b.userId, id);
    for (const p of [a, b]) {
      await waitFor(() => eventsOf(p, 'messageDeleted').some(([x, ch]) => x === id && ch === m.channelId), 'the delete');
      expect(eventsOf(p, 'messageDeleted').filter(([x]) => x === id)).toHaveLength(1);
    }
    expect(b.client.getMessageHandle(id)).toBeUndefined();
    expect(await b.client.getUserMessageSummaries()).toEqual([]);
  });

  it('getUserMessagesWithLimit: HTTP first, then the local cache while it holds enough', async () => {
    const a = await player('Gus');
    const b = await player('Hope');
    await befriend(a, b, waitFor);
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push(await (i % 2 ? b : a).client.sendUserMessage(i % 2 ? a.userId : b.userId, `m${i}`));
    await waitFor(() => eventsOf(b, 'messageCreated').length >= 5, 'all delivered');

    // A fresh client of B's account knows none of it: the first read goes to the server.
    const bAgain = await player('Hope', { deviceId: b.deviceId });
    const gets = () => bAgain.requests.filter((r) => r.startsWith(`GET /users/${a.userId}/messages`)).length;
    const first = await bAgain.client.getUserMessagesWithLimit(a.userId, 3);
    expect(first.map((h: MessageHandle) => h.content())).toEqual(['m4', 'm3', 'm2']);
    expect(gets()).toBe(1);
    // Enough cached for 3 or fewer: no request.
    expect((await bAgain.client.getUserMessagesWithLimit(a.userId, 2)).map((h) => h.content())).toEqual(['m4', 'm3']);
    expect(gets()).toBe(1);
    // A live message extends the cached run.
    const live = await a.client.sendUserMessage(b.userId, 'm5');
    await waitFor(() => bAgain.client.getMessageHandle(live), 'live message');
    expect((await bAgain.client.getUserMessagesWithLimit(a.userId, 4)).map((h) => h.content())).toEqual(['m5', 'm4', 'm3', 'm2']);
    expect(gets()).toBe(1);
    // More than is cached: the server again, and then the whole history is known locally.
    expect((await bAgain.client.getUserMessagesWithLimit(a.userId, 50)).map((h) => h.content())).toEqual(['m5', 'm4', 'm3', 'm2', 'm1', 'm0']);
    expect(gets()).toBe(2);
    expect((await bAgain.client.getUserMessagesWithLimit(a.userId, 0)).length).toBe(6);
    expect(gets()).toBe(2);
    expect((await rejection(bAgain.client.getUserMessagesWithLimit('123456789012345678', 5))).errorCode).toBe(10013);
  });

  it('lobby co-members may message each other; lobby messages carry metadata, additional names and moderation metadata', async () => {
    const a = await player('Ivo');
    const b = await player('Jill');
    const secret = newSecret();
    const lobbyId = await a.client.createOrJoinLobby(secret);
    await b.client.createOrJoinLobby(secret);
    // Co-members may DM without being friends.
    const dm = await b.client.sendUserMessage(a.userId, 'nice game');
    await waitFor(() => a.client.getMessageHandle(dm), 'the co-member DM');

    // The game backend names the member (only the backend can: Bot token).
    expect((await env.api('PUT', `/lobbies/${lobbyId}/members/${a.userId}`, `Bot ${env.app.botToken}`, { additional_name: 'Sir Ivo' })).status).toBe(200);
    await waitFor(() => b.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(a.userId)?.additionalName() === 'Sir Ivo', 'the additional name');
    const msgId = await a.client.sendLobbyMessageWithMetadata(lobbyId, 'for the realm', { emote: 'bow' });
    await waitFor(() => b.client.getMessageHandle(msgId), 'the lobby message');
    const msg = b.client.getMessageHandle(msgId)!;
    expect(msg.additionalName()).toBe('Sir Ivo');
    expect(msg.metadata()).toEqual({ emote: 'bow' });
    expect(msg.lobbyId).toBe(lobbyId);
    expect(msg.recipientId).toBe('0');
    expect(msg.applicationId).toBe(env.app.id);
    const mod = await env.api('PUT', `/lobbies/${lobbyId}/messages/${msgId}/moderation-metadata`, `Bot ${env.app.botToken}`, { toxicity: 'low' });
    expect(mod.status).toBe(204);
    await waitFor(() => msg.moderationMetadata().toxicity === 'low', 'lobby moderation metadata');
    expect(eventsOf(b, 'messageUpdated')).toContainEqual([msgId]);
  });
});
