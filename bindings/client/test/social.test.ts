// Three real clients against the real server: friends (platform and game), requests, blocks,
// presence reaching friends and nobody else, the relationship groups and their updated callback
// after each kind of change, and bad input refused with the documented errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Activity,
  ActivityAssets,
  ActivityButton,
  ActivityParty,
  ActivityPartyPrivacy,
  ActivitySecrets,
  ActivityTimestamps,
  ActivityTypes,
  ClientResultError,
  ErrorType,
  RelationshipGroupType,
  RelationshipType,
  StatusDisplayTypes,
  StatusType,
} from '../src/index.ts';
import { waitFor } from './helpers.ts';
import { befriend, connectPlayer, dispatchesOf, eventsOf, startSocialEnv, type Player, type SocialEnv } from './socialHelpers.ts';

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

const ids = (handles: { id: string }[]) => handles.map((h) => h.id);

describe('relationships with three clients', { timeout: 30_000 }, () => {
  it('requests of both kinds: send by username and ID, accept, reject, cancel, remove, with events', async () => {
    const a = await player('Alma');
    const b = await player('Bram');
    const c = await player('Cleo');

    // Platform request by username; B accepts.
    await a.client.sendDiscordFriendRequest(b.username);
    await waitFor(() => eventsOf(b, 'relationshipCreated').some(([id, platform]) => id === a.userId && platform === true), 'B to hear of the request');
    const incoming = b.client.getRelationshipHandle(a.userId);
    expect(incoming.discordRelationshipType()).toBe(RelationshipType.PendingIncoming);
    expect(incoming.gameRelationshipType()).toBe(RelationshipType.None);
    expect(incoming.isSpamRequest()).toBe(false);
    expect(incoming.user()?.displayName).toBe('Alma');
    expect(a.client.getRelationshipHandle(b.userId).discordRelationshipType()).toBe(RelationshipType.PendingOutgoing);
    await b.client.acceptDiscordFriendRequest(a.userId);
    await waitFor(() => a.client.getRelationshipHandle(b.userId).discordRelationshipType() === RelationshipType.Friend, 'A to see the friendship');
    expect(incoming.discordRelationshipType()).toBe(RelationshipType.Friend); // the handle is a live view

    // Game request by ID; C rejects; A asks again and cancels; then a game friendship.
    await a.client.sendGameFriendRequestById(c.userId);
    await waitFor(() => c.client.getRelationshipHandle(a.userId).gameRelationshipType() === RelationshipType.PendingIncoming, 'C to see the game request');
    expect(eventsOf(c, 'relationshipCreated')).toContainEqual([a.userId, false]);
    await c.client.rejectGameFriendRequest(a.userId);
    await waitFor(() => a.client.getRelationshipHandle(c.userId).gameRelationshipType() === RelationshipType.None, 'A to see the reject');
    expect(eventsOf(a, 'relationshipDeleted')).toContainEqual([c.userId, false]);
    await a.client.sendGameFriendRequest(c.username);
    await waitFor(() => c.client.getRelationshipHandle(a.userId).isSpamRequest(), 'the re-sent request to be marked spam');
    await a.client.cancelGameFriendRequest(c.userId);
    await waitFor(() => c.client.getRelationshipHandle(a.userId).gameRelationshipType() === RelationshipType.None, 'the cancel');
    await c.client.sendGameFriendRequestById(a.userId);
    await waitFor(() => a.client.getRelationshipHandle(c.userId).gameRelationshipType() === RelationshipType.PendingIncoming, 'C asks A');
    await a.client.acceptGameFriendRequest(c.userId);
    await waitFor(() => c.client.getRelationshipHandle(a.userId).gameRelationshipType() === RelationshipType.Friend, 'game friends');

    expect(ids(a.client.getRelationships()).sort()).toEqual([b.userId, c.userId].sort());
    expect(ids(b.client.getRelationships())).toEqual([a.userId]);

    // RemoveGameFriend ends only the game friendship; RemoveDiscordAndGameFriend ends both.
    await a.client.sendGameFriendRequestById(b.userId);
    await waitFor(() => b.client.getRelationshipHandle(a.userId).gameRelationshipType() === RelationshipType.PendingIncoming, 'game request to B');
    await b.client.acceptGameFriendRequest(a.userId);
    await waitFor(() => a.client.getRelationshipHandle(b.userId).gameRelationshipType() === RelationshipType.Friend, 'A and B game friends');
    await a.client.removeGameFriend(c.userId);
    await waitFor(() => c.client.getRelationships().length === 0, 'C to lose A');
    expect(eventsOf(c, 'relationshipDeleted')).toContainEqual([a.userId, false]);
    await b.client.removeDiscordAndGameFriend(a.userId);
    await waitFor(() => a.client.getRelationships().length === 0, 'A to lose B');
    expect(eventsOf(a, 'relationshipDeleted')).toEqual(expect.arrayContaining([[b.userId, true], [b.userId, false]]));
    expect(a.client.getRelationshipHandle(b.userId).discordRelationshipType()).toBe(RelationshipType.None);
  });

  it('bad input: unknown users, self-friending, duplicates and wrong states get their errors and change nothing', async () => {
    const a = await player('Ann');
    const b = await player('Bob');
    await befriend(a, b, waitFor);
    const frameCount = a.frames.length;
    const before = a.client.getRelationships().map((r) => [r.id, r.discordRelationshipType(), r.gameRelationshipType()]);

    const unknown = await rejection(a.client.sendDiscordFriendRequestById('123456789012345678'));
    expect([unknown.type, unknown.status, unknown.errorCode]).toEqual([ErrorType.HTTPError, 404, 10013]);
    const noName = await rejection(a.client.sendDiscordFriendRequest('no_such_user_anywhere'));
    expect([noName.status, noName.errorCode]).toEqual([400, 80004]);
    const self = await rejection(a.client.sendDiscordFriendRequestById(a.userId));
    expect([self.type, self.errorCode]).toEqual([ErrorType.ValidationError, 80003]);
    const dup = await rejection(a.client.sendDiscordFriendRequestById(b.userId));
    expect([dup.type, dup.errorCode]).toEqual([ErrorType.ValidationError, 80007]);
    const notIncoming = await rejection(a.client.acceptGameFriendRequest(b.userId));
    expect([notIncoming.type, notIncoming.errorCode]).toEqual([ErrorType.ValidationError, 80011]);
    const notOutgoing = await rejection(a.client.cancelDiscordFriendRequest(b.userId));
    expect(notOutgoing.errorCode).toBe(80012);
    const notBlocked = await rejection(a.client.unblockUser(b.userId));
    expect(notBlocked.errorCode).toBe(80013);
    const notGameFriend = await rejection(a.client.removeGameFriend(b.userId));
    expect(notGameFriend.errorCode).toBe(80006);
    const badId = await rejection(a.client.blockUser('not-a-snowflake'));
    expect(badId.type).toBe(ErrorType.ValidationError);

    // Duplicate outgoing request.
    const c = await player('Cid');
    await a.client.sendGameFriendRequestById(c.userId);
    await waitFor(() => a.client.getRelationshipHandle(c.userId).gameRelationshipType() === RelationshipType.PendingOutgoing, 'pending');
    const twice = await rejection(a.client.sendGameFriendRequestById(c.userId));
    expect(twice.errorCode).toBe(80010);
    await a.client.cancelGameFriendRequest(c.userId);
    await waitFor(() => a.client.getRelationshipHandle(c.userId).gameRelationshipType() === RelationshipType.None, 'cancelled');

    expect(a.client.getRelationships().map((r) => [r.id, r.discordRelationshipType(), r.gameRelationshipType()])).toEqual(before);
    // The refused calls sent nothing to anyone: no relationship dispatch beyond the pending/cancel pair.
    const relFrames = a.frames.slice(frameCount).filter((f) => f.t?.startsWith('RELATIONSHIP_'));
    expect(relFrames.map((f) => f.d.id)).toEqual([c.userId, c.userId]);
  });

  it('blocking: ends the friendship, refuses the blocked user\'s messages, invites and requests; unblock', async () => {
    const a = await player('Ada');
    const b = await player('Ben');
    await befriend(a, b, waitFor);
    await b.client.blockUser(a.userId);
    await waitFor(() => a.client.getRelationships().length === 0, 'A to lose the friendship');
    expect(b.client.getRelationshipHandle(a.userId).discordRelationshipType()).toBe(RelationshipType.Blocked);
    expect(b.client.getUser(a.userId)?.status()).toBe(StatusType.Blocked);
    expect(eventsOf(a, 'relationshipDeleted')).toContainEqual([b.userId, true]);

    const dm = await rejection(a.client.sendUserMessage(b.userId, 'let me explain'));
    expect([dm.status, dm.errorCode]).toEqual([403, 50007]);
    const back = await rejection(b.client.sendUserMessage(a.userId, 'no'));
    expect(back.errorCode).toBe(50007);
    const activity = new Activity();
    const party = new ActivityParty();
    party.setId('party-ada');
    party.setCurrentSize(1);
    party.setMaxSize(4);
    activity.setParty(party);
    const secrets = new ActivitySecrets();
    secrets.setJoin('secret-ada');
    activity.setSecrets(secrets);
    await a.client.updateRichPresence(activity);
    const invite = await rejection(a.client.sendActivityInvite(b.userId, 'join me'));
    expect(invite.errorCode).toBe(50007);
    const request = await rejection(a.client.sendDiscordFriendRequestById(b.userId));
    expect(request.errorCode).toBe(80001);
    expect(eventsOf(b, 'messageCreated')).toEqual([]);
    expect(eventsOf(b, 'activityInviteCreated')).toEqual([]);

    await b.client.unblockUser(a.userId);
    await waitFor(() => b.client.getRelationships().length === 0, 'the block to go');
    expect(b.client.getUser(a.userId)?.status()).toBe(StatusType.Unknown);
  });
});

describe('presence with three clients', { timeout: 30_000 }, () => {
  it('rich presence reaches friends only, with every Activity field, and status changes follow', async () => {
    const a = await player('Pam');
    const friend = await player('Fay');
    const stranger = await player('Sol');
    await befriend(a, friend, waitFor);
    await waitFor(() => friend.client.getUser(a.userId)?.status() === StatusType.Online, 'the friend to see A online');
    expect(friend.client.getUser(a.userId)?.gameActivity()?.name()).toBe('Social Game');

    const activity = new Activity();
    activity.setType(ActivityTypes.Competing);
    activity.setName('Ranked Arena');
    activity.setStatusDisplayType(StatusDisplayTypes.Details);
    activity.setState('In a group');
    activity.setStateUrl('https://example.com/group');
    activity.setDetails('Round 3');
    activity.setDetailsUrl('https://example.com/round');
    const ts = new ActivityTimestamps();
    ts.setStart(1_700_000_000);
    activity.setTimestamps(ts);
    const assets = new ActivityAssets();
    assets.setLargeImage('arena');
    assets.setLargeText('The arena');
    assets.setLargeUrl('https://example.com/arena');
    assets.setSmallImage('rank-gold');
    assets.setSmallText('Gold');
    assets.setSmallUrl('https://example.com/rank');
    assets.setInviteCoverImage('https://example.com/cover.png');
    activity.setAssets(assets);
    const party = new ActivityParty();
    party.setId('party-pam');
    party.setCurrentSize(2);
    party.setMaxSize(5);
    party.setPrivacy(ActivityPartyPrivacy.Public);
    activity.setParty(party);
    const secrets = new ActivitySecrets();
    secrets.setJoin('join-pam');
    activity.setSecrets(secrets);
    const button = new ActivityButton();
    button.setLabel('Spectate');
    button.setUrl('https://example.com/spectate');
    activity.addButton(button);
    await a.client.updateRichPresence(activity);

    const seen = await waitFor(() => {
      const g = friend.client.getUser(a.userId)?.gameActivity();
      return g?.name() === 'Ranked Arena' ? g : undefined;
    }, 'the friend to see the activity');
    expect(seen.type()).toBe(ActivityTypes.Competing);
    expect(seen.statusDisplayType()).toBe(StatusDisplayTypes.Details);
    expect([seen.state(), seen.stateUrl(), seen.details(), seen.detailsUrl()]).toEqual(['In a group', 'https://example.com/group', 'Round 3', 'https://example.com/round']);
    expect(seen.timestamps()?.start()).toBe(1_700_000_000_000);
    expect(seen.assets()?.largeUrl()).toBe('https://example.com/arena');
    expect(seen.assets()?.smallUrl()).toBe('https://example.com/rank');
    expect(seen.assets()?.inviteCoverImage()).toBe('https://example.com/cover.png');
    expect([seen.party()?.id(), seen.party()?.currentSize(), seen.party()?.maxSize(), seen.party()?.privacy()]).toEqual(['party-pam', 2, 5, ActivityPartyPrivacy.Public]);
    expect(seen.getButtons().map((b) => [b.label(), b.url()])).toEqual([['Spectate', 'https://example.com/spectate']]);
    expect(seen.secrets()).toBeUndefined(); // the join secret is never shown to others
    expect(seen.applicationId()).toBe(env.app.id);
    // Our own view keeps the secret.
    expect(a.client.getCurrentUserV2()?.gameActivity()?.secrets()?.join()).toBe('join-pam');
    expect(a.client.getCurrentUserV2()?.gameActivity()?.equals(activity)).toBe(false); // server fields were added

    await a.client.setOnlineStatus(StatusType.Dnd);
    expect(a.client.getCurrentUserV2()?.status()).toBe(StatusType.Dnd);
    await waitFor(() => friend.client.getUser(a.userId)?.status() === StatusType.Dnd, 'dnd');
    await a.client.setOnlineStatus(StatusType.Invisible);
    await waitFor(() => friend.client.getUser(a.userId)?.status() === StatusType.Offline, 'invisible reads offline');
    expect(friend.client.getUser(a.userId)?.gameActivity()).toBeUndefined();
    await a.client.setOnlineStatus(StatusType.Online);
    await a.client.clearRichPresence();
    await waitFor(() => friend.client.getUser(a.userId)?.gameActivity()?.name() === 'Social Game', 'clear back to the plain game');

    // The stranger (who shares nothing with A) never got a single PRESENCE_UPDATE about A.
    expect(dispatchesOf(stranger, 'PRESENCE_UPDATE').filter((d) => d.user.id === a.userId)).toEqual([]);
    expect(stranger.client.getUser(a.userId)).toBeUndefined();

    // Friends see A go offline when A disconnects.
    await a.client.disconnect();
    await waitFor(() => friend.client.getUser(a.userId)?.status() === StatusType.Offline, 'A offline');
  });

  it('refuses bad activities locally (no request) and on the server (50035), changing nothing', async () => {
    const a = await player('Vic');
    const friend = await player('Wes');
    await befriend(a, friend, waitFor);
    await waitFor(() => friend.client.getUser(a.userId)?.status() === StatusType.Online, 'online');
    const requests = a.requests.length;

    const wrongType = new Activity();
    wrongType.setType(ActivityTypes.Streaming);
    expect((await rejection(a.client.updateRichPresence(wrongType))).type).toBe(ErrorType.ValidationError);
    const custom = new Activity();
    custom.setType(ActivityTypes.CustomStatus);
    expect((await rejection(a.client.updateRichPresence(custom))).type).toBe(ErrorType.ValidationError);
    const buttons = new Activity();
    for (const label of ['one', 'two', 'three']) {
      const b = new ActivityButton();
      b.setLabel(label);
      b.setUrl('https://example.com');
      buttons.addButton(b);
    }
    expect((await rejection(a.client.updateRichPresence(buttons))).error).toMatch(/at most 2 buttons/);
    const long = new Activity();
    long.setState('s'.repeat(129));
    expect((await rejection(a.client.updateRichPresence(long))).type).toBe(ErrorType.ValidationError);
    const badUrl = new Activity();
    badUrl.setDetailsUrl('javascript:alert(1)');
    expect((await rejection(a.client.updateRichPresence(badUrl))).type).toBe(ErrorType.ValidationError);
    expect((await rejection(a.client.setOnlineStatus(StatusType.Streaming))).type).toBe(ErrorType.ValidationError);
    expect(a.requests.length).toBe(requests);

    // The server refuses the same without the client's checks.
    const r = await env.api('PUT', '/users/@me/activities', `Bearer ${a.token}`, { type: 1, state: 's'.repeat(200), buttons: [1, 2, 3].map(() => ({ label: 'x', url: 'https://e.com' })) });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(50035);
    expect(Object.keys(r.body.errors).sort()).toEqual(['buttons', 'state', 'type']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(friend.client.getUser(a.userId)?.gameActivity()?.name()).toBe('Social Game');
  });
});

describe('relationship groups', { timeout: 30_000 }, () => {
  it('sorts friends into groups, and the callback fires after each kind of change', async () => {
    const a = await player('Gia');
    const b = await player('Hal');
    const c = await player('Ike');
    const updates: string[] = [];
    a.client.setRelationshipGroupsUpdatedCallback((userId) => updates.push(userId));
    const group = (g: RelationshipGroupType) => ids(a.client.getRelationshipsByGroup(g));

    // Friend added.
    await befriend(a, b, waitFor);
    await waitFor(() => updates.includes(b.userId), 'callback for B added');
    await waitFor(() => group(RelationshipGroupType.OnlinePlayingGame).includes(b.userId), 'B playing');
    await befriend(c, a, waitFor);
    await waitFor(() => group(RelationshipGroupType.OnlinePlayingGame).length === 2, 'both playing');
    expect(group(RelationshipGroupType.OnlinePlayingGame)).toEqual([b.userId, c.userId].sort((x, y) => (x === b.userId ? -1 : 1))); // Hal < Ike by name

    // Status change.
    updates.length = 0;
    await b.client.setOnlineStatus(StatusType.Idle);
    await waitFor(() => updates.includes(b.userId), 'callback for B idle');

    // Game stop: C leaves this game but stays online in another application.
    const other = await env.server.createApplication({ name: 'Other Game' });
    const otherToken = await env.server.store.tokens.issue(c.userId, other.id, ['sdk.social_layer'], 3600);
    const cElsewhere = await player('Ike', { token: otherToken });
    updates.length = 0;
    await c.client.disconnect();
    await waitFor(() => updates.includes(c.userId), 'callback for C stopping the game');
    await waitFor(() => group(RelationshipGroupType.OnlineElsewhere).includes(c.userId), 'C online elsewhere');
    expect(a.client.getUser(c.userId)?.gameActivity()).toBeUndefined(); // the other game's activity is not ours to see
    expect(a.client.getUser(c.userId)?.status()).toBe(StatusType.Online);

    // Game start: C comes back.
    updates.length = 0;
    await c.client.connect();
    await waitFor(() => updates.includes(c.userId), 'callback for C starting the game');
    await waitFor(() => group(RelationshipGroupType.OnlinePlayingGame).includes(c.userId), 'C playing again');

    // Offline: C leaves everything.
    await c.client.disconnect();
    await cElsewhere.client.disconnect();
    await waitFor(() => group(RelationshipGroupType.Offline).includes(c.userId), 'C offline');

    // Friend removed.
    updates.length = 0;
    await a.client.removeDiscordAndGameFriend(b.userId);
    await waitFor(() => updates.includes(b.userId), 'callback for B removed');
    expect(group(RelationshipGroupType.OnlinePlayingGame)).toEqual([]);
    expect(group(RelationshipGroupType.Offline)).toEqual([c.userId]);
    // Pending requests are in no group.
    await a.client.sendDiscordFriendRequestById(b.userId);
    await waitFor(() => a.client.getRelationshipHandle(b.userId).discordRelationshipType() === RelationshipType.PendingOutgoing, 'pending');
    expect([0, 1, 2].flatMap((g) => group(g as RelationshipGroupType))).toEqual([c.userId]);
  });

  it('puts friends who played this game before first among those online elsewhere', async () => {
    const a = await player('Jo');
    const veteran = await player('Zed');
    const other = await env.server.createApplication({ name: 'Elsewhere' });
    // A friend who never played this game: a user of the other application only.
    const newcomerToken = (await env.api('POST', '/partner-sdk/token', '', { client_id: other.id, external_auth_type: 'DEVICE_ID', external_auth_token: 'newcomer-device-0123456789' })).body.access_token;
    const newcomerUser = (await env.api('GET', '/users/@me', `Bearer ${newcomerToken}`)).body;
    const newcomer = await player('Amy', { token: newcomerToken });
    await env.api('PATCH', '/users/@me', `Bearer ${newcomerToken}`, { global_name: 'Amy' });
    await befriend(a, veteran, waitFor);
    await a.client.sendDiscordFriendRequestById(newcomerUser.id);
    await waitFor(() => newcomer.client.getRelationshipHandle(a.userId).discordRelationshipType() === RelationshipType.PendingIncoming, 'request');
    await newcomer.client.acceptDiscordFriendRequest(a.userId);
    const vetElsewhere = await player('Zed', { token: await env.server.store.tokens.issue(veteran.userId, other.id, ['sdk.social_layer'], 3600) });
    await veteran.client.disconnect();
    await waitFor(() => ids(a.client.getRelationshipsByGroup(RelationshipGroupType.OnlineElsewhere)).length === 2, 'both elsewhere');
    // Zed played this game before, so Zed comes before Amy despite the name.
    expect(ids(a.client.getRelationshipsByGroup(RelationshipGroupType.OnlineElsewhere))).toEqual([veteran.userId, newcomerUser.id]);
    await vetElsewhere.client.disconnect();
  });
});
