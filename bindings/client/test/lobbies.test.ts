// Two real guests against the real server: joining, membership events, messages, leaving, and
// coming back on the same device.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientStatus } from '../src/index.ts';
import {
  connectGuest,
  eventsNamed,
  newDeviceId,
  newSecret,
  startTestServer,
  waitFor,
  type Guest,
  type TestEnv,
} from './helpers.ts';

let env: TestEnv;
const guests: Guest[] = [];

beforeAll(async () => {
  env = await startTestServer({ presenceGraceMs: 50 });
});

afterAll(async () => {
  for (const guest of guests) await guest.client.destroy();
  await env?.close();
});

async function guest(deviceId?: string): Promise<Guest> {
  const g = await connectGuest(env, deviceId);
  guests.push(g);
  return g;
}

describe('lobbies and messages', { timeout: 20_000 }, () => {
  it('two guests join one lobby by secret, see each other and exchange messages', async () => {
    const alice = await guest();
    const bob = await guest();
    expect(alice.client.getStatus()).toBe(ClientStatus.Ready);
    expect(alice.userId).not.toBe(bob.userId);
    expect(alice.client.getCurrentUserV2()?.isProvisional).toBe(true);
    expect(alice.client.getApplicationId()).toBe(env.appId);

    const secret = newSecret();
    const lobbyId = await alice.client.createOrJoinLobby(secret);
    expect(eventsNamed(alice.events, 'lobbyCreated')).toContainEqual([lobbyId]);
    expect(alice.client.getLobbyIds()).toContain(lobbyId);

    const bobLobbyId = await bob.client.createOrJoinLobby(secret);
    expect(bobLobbyId).toBe(lobbyId);
    await waitFor(
      () => eventsNamed(alice.events, 'lobbyMemberAdded').some(([l, m]) => l === lobbyId && m === bob.userId),
      'alice to see bob added',
    );
    // Member events are never about oneself (the joiner gets lobbyCreated instead).
    expect(eventsNamed(bob.events, 'lobbyMemberAdded').some(([, m]) => m === bob.userId)).toBe(false);
    expect(eventsNamed(bob.events, 'lobbyCreated')).toContainEqual([lobbyId]);

    for (const g of [alice, bob]) {
      const lobby = g.client.getLobbyHandle(lobbyId);
      expect(lobby?.lobbyMemberIds().sort()).toEqual([alice.userId, bob.userId].sort());
    }
    const bobAsSeenByAlice = alice.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(bob.userId);
    expect(bobAsSeenByAlice?.connected()).toBe(true);
    expect(bobAsSeenByAlice?.canLinkLobby()).toBe(false);
    expect(bobAsSeenByAlice?.user()?.id).toBe(bob.userId);
    expect(bobAsSeenByAlice?.user()?.username).toBe(bob.client.getCurrentUserV2()?.username);

    const helloId = await alice.client.sendLobbyMessage(lobbyId, 'hello bob');
    const replyId = await bob.client.sendLobbyMessageWithMetadata(lobbyId, 'hi alice', { mood: 'happy' });
    for (const g of [alice, bob]) {
      await waitFor(() => {
        const ids = eventsNamed(g.events, 'messageCreated').map(([id]) => id);
        return ids.includes(helloId) && ids.includes(replyId);
      }, 'both messages on both sides');
      const hello = g.client.getMessageHandle(helloId);
      expect(hello?.content()).toBe('hello bob');
      expect(hello?.authorId).toBe(alice.userId);
      expect(hello?.author()?.id).toBe(alice.userId);
      expect(hello?.lobbyId).toBe(lobbyId);
      expect(hello?.channelId).toBe(lobbyId);
      expect(hello?.lobby()?.id).toBe(lobbyId);
      expect(hello?.sentTimestamp).toBeGreaterThan(Date.now() - 60_000);
      const reply = g.client.getMessageHandle(replyId);
      expect(reply?.content()).toBe('hi alice');
      expect(reply?.metadata()).toEqual({ mood: 'happy' });
    }
    // Exactly one messageCreated per message, including for the sender.
    expect(eventsNamed(alice.events, 'messageCreated').filter(([id]) => id === helloId)).toHaveLength(1);
  });

  it('shows metadata and display names as live views', async () => {
    const alice = await guest();
    const bob = await guest();
    const secret = newSecret();
    const lobbyId = await alice.client.createOrJoinLobbyWithMetadata(secret, { mode: 'race' }, { color: 'red' });
    const lobby = alice.client.getLobbyHandle(lobbyId);
    expect(lobby?.metadata()).toEqual({ mode: 'race' });
    expect(lobby?.getLobbyMemberHandle(alice.userId)?.metadata()).toEqual({ color: 'red' });

    await bob.client.createOrJoinLobbyWithMetadata(secret, { mode: 'race' }, { color: 'blue' });
    const bobMember = await waitFor(() => lobby?.getLobbyMemberHandle(bob.userId), 'bob in alice view');
    expect(bobMember.metadata()).toEqual({ color: 'blue' });

    // Same secret again with new metadata: an update, seen through the handles taken before.
    await bob.client.createOrJoinLobbyWithMetadata(secret, { mode: 'battle' }, { color: 'green' });
    await waitFor(() => bobMember.metadata().color === 'green', 'bob member metadata update');
    await waitFor(() => lobby?.metadata().mode === 'battle', 'lobby metadata update');
    expect(eventsNamed(alice.events, 'lobbyUpdated')).toContainEqual([lobbyId]);
    expect(eventsNamed(alice.events, 'lobbyMemberUpdated')).toContainEqual([lobbyId, bob.userId]);

    const me = bob.client.getCurrentUserV2();
    await bob.client.updateProvisionalAccountDisplayName('Bobby');
    expect(me?.displayName).toBe('Bobby');
    expect(me?.globalName).toBe('Bobby');
    // Co-members hear about it too, through the same UserHandle they already hold.
    const bobUser = bobMember.user();
    await waitFor(() => bobUser?.displayName === 'Bobby', 'alice to see the new name');
    expect(eventsNamed(alice.events, 'userUpdated')).toContainEqual([bob.userId]);
  });

  it('leaveLobby deletes the lobby locally and removes the member for the others', async () => {
    const alice = await guest();
    const bob = await guest();
    const secret = newSecret();
    const lobbyId = await alice.client.createOrJoinLobby(secret);
    await bob.client.createOrJoinLobby(secret);
    await waitFor(() => alice.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(bob.userId), 'bob joined');
    const handle = bob.client.getLobbyHandle(lobbyId);

    await bob.client.leaveLobby(lobbyId);
    expect(eventsNamed(bob.events, 'lobbyDeleted')).toEqual([[lobbyId]]);
    expect(bob.client.getLobbyHandle(lobbyId)).toBeUndefined();
    expect(bob.client.getLobbyIds()).not.toContain(lobbyId);
    expect(handle?.lobbyMemberIds()).toEqual([]);
    await waitFor(
      () => eventsNamed(alice.events, 'lobbyMemberRemoved').some(([l, m]) => l === lobbyId && m === bob.userId),
      'alice to see bob removed',
    );
    expect(alice.client.getLobbyHandle(lobbyId)?.lobbyMemberIds()).toEqual([alice.userId]);
    // The LOBBY_DELETE dispatch that follows the leave must not fire a second lobbyDeleted.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(eventsNamed(bob.events, 'lobbyDeleted')).toHaveLength(1);
  });

  it('disconnect shows the member as not connected to the others', async () => {
    const alice = await guest();
    const bob = await guest();
    const secret = newSecret();
    const lobbyId = await alice.client.createOrJoinLobby(secret);
    await bob.client.createOrJoinLobby(secret);
    const bobMember = await waitFor(
      () => alice.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(bob.userId),
      'bob joined',
    );
    expect(bobMember.connected()).toBe(true);
    const statuses: number[] = [];
    bob.client.on('statusChanged', (status) => statuses.push(status));
    await bob.client.disconnect();
    expect(statuses).toEqual([ClientStatus.Disconnecting, ClientStatus.Disconnected]);
    expect(bob.client.getLobbyIds()).toEqual([]);
    await waitFor(() => bobMember.connected() === false, 'bob shown offline');
    expect(eventsNamed(alice.events, 'lobbyMemberUpdated')).toContainEqual([lobbyId, bob.userId]);
  });

  it('the same device ID comes back as the same user, in the same lobby, with its history', async () => {
    const deviceId = newDeviceId();
    const first = await guest(deviceId);
    const secret = newSecret();
    const lobbyId = await first.client.createOrJoinLobby(secret);
    const sent: string[] = [];
    for (const text of ['one', 'two', 'three']) sent.push(await first.client.sendLobbyMessage(lobbyId, text));
    await first.client.destroy();

    const again = await guest(deviceId);
    expect(again.userId).toBe(first.userId);
    expect(again.client.getLobbyIds()).toContain(lobbyId);
    expect(eventsNamed(again.events, 'lobbyCreated')).toContainEqual([lobbyId]);
    // Lobby events from READY come after statusChanged(Ready).
    const readyAt = again.events.findIndex((e) => e[0] === 'statusChanged' && e[1] === ClientStatus.Ready);
    const createdAt = again.events.findIndex((e) => e[0] === 'lobbyCreated' && e[1] === lobbyId);
    expect(createdAt).toBeGreaterThan(readyAt);
    // We are connected by definition; READY must not show us offline and flip us back.
    expect(again.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(again.userId)?.connected()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(eventsNamed(again.events, 'lobbyMemberUpdated').filter(([, m]) => m === again.userId)).toEqual([]);

    const history = await again.client.getLobbyMessagesWithLimit(lobbyId, 0);
    expect(history.map((m) => m.content())).toEqual(['three', 'two', 'one']);
    expect(history.map((m) => m.id)).toEqual([...sent].reverse());
    expect(history[0]?.author()?.id).toBe(first.userId);
    const two = await again.client.getLobbyMessagesWithLimit(lobbyId, 2);
    expect(two.map((m) => m.content())).toEqual(['three', 'two']);
    // History is not live traffic: it does not enter the message cache.
    expect(again.client.getMessageHandle(sent[0]!)).toBeUndefined();
  });
});
