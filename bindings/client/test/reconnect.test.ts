// Losing the connection: Resume with replay, zombie detection, and the fresh-Identify path
// after an Invalid Session, all against the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayOpcode } from '@social-layer/protocol';
import { ClientError, ClientStatus } from '../src/index.ts';
import {
  connectGuest,
  eventsNamed,
  newDeviceId,
  newSecret,
  sleep,
  startTestServer,
  waitFor,
  type Guest,
  type TestEnv,
} from './helpers.ts';

let env: TestEnv;
const guests: Guest[] = [];

beforeAll(async () => {
  // Short heartbeats so zombie detection happens within a test; a short resume window so the
  // Invalid Session path can be reached by waiting it out.
  env = await startTestServer({ heartbeatIntervalMs: 250, resumeWindowMs: 1500, presenceGraceMs: 50 });
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

async function pair(): Promise<{ alice: Guest; bob: Guest; lobbyId: string }> {
  const alice = await guest();
  const bob = await guest();
  const secret = newSecret();
  const lobbyId = await alice.client.createOrJoinLobby(secret);
  await bob.client.createOrJoinLobby(secret);
  await waitFor(() => alice.client.getLobbyHandle(lobbyId)?.getLobbyMemberHandle(bob.userId), 'bob joined');
  return { alice, bob, lobbyId };
}

function statusesOf(g: Guest): number[] {
  return eventsNamed(g.events, 'statusChanged').map(([status]) => status as number);
}

describe('reconnect and resume', { timeout: 30_000 }, () => {
  it('resumes after the socket is cut and gets every message sent meanwhile, in order, once', async () => {
    const { alice, bob, lobbyId } = await pair();
    const seenBefore = eventsNamed(alice.events, 'messageCreated').length;
    const statusesBefore = statusesOf(alice).length;
    const socketsBefore = alice.lab.sockets.length;

    alice.lab.cut();
    const sent: string[] = [];
    for (let i = 0; i < 8; i++) sent.push(await bob.client.sendLobbyMessage(lobbyId, `while away ${i}`));

    await waitFor(() => eventsNamed(alice.events, 'messageCreated').length >= seenBefore + sent.length, 'all messages');
    await waitFor(() => alice.client.getStatus() === ClientStatus.Ready, 'ready again');
    await sleep(300);
    const received = eventsNamed(alice.events, 'messageCreated')
      .slice(seenBefore)
      .map(([id]) => id as string);
    expect(received).toEqual(sent);
    expect(received.map((id) => alice.client.getMessageHandle(id)?.content())).toEqual(sent.map((_, i) => `while away ${i}`));

    const newStatuses = statusesOf(alice).slice(statusesBefore);
    expect(newStatuses).toEqual([ClientStatus.Reconnecting, ClientStatus.Ready]);
    const reconnecting = eventsNamed(alice.events, 'statusChanged').find(([s]) => s === ClientStatus.Reconnecting);
    expect(reconnecting?.[1]).toBe(ClientError.UnexpectedClose);
    // It resumed (op 6 with the old session) rather than identifying again.
    expect(alice.lab.sockets.length).toBeGreaterThan(socketsBefore);
    const ops = alice.lab.sentOps();
    expect(ops.lastIndexOf(GatewayOpcode.Resume)).toBeGreaterThan(ops.lastIndexOf(GatewayOpcode.Identify));
    // Nothing about the lobby changed for alice, so no lobby events fired.
    expect(alice.client.getLobbyHandle(lobbyId)?.lobbyMemberIds().sort()).toEqual([alice.userId, bob.userId].sort());
  });

  it('detects a zombie connection (no heartbeat ACK) and resumes', async () => {
    const alice = await guest();
    const statusesBefore = statusesOf(alice).length;
    const socketsBefore = alice.lab.sockets.length;
    alice.lab.dropAcks = true;
    await waitFor(() => alice.client.getStatus() === ClientStatus.Reconnecting, 'zombie detected', 5000);
    alice.lab.dropAcks = false;
    await waitFor(() => alice.client.getStatus() === ClientStatus.Ready, 'ready again');
    expect(statusesOf(alice).slice(statusesBefore)).toEqual([ClientStatus.Reconnecting, ClientStatus.Ready]);
    expect(alice.lab.sockets.length).toBe(socketsBefore + 1);
    const ops = alice.lab.sentOps();
    expect(ops.lastIndexOf(GatewayOpcode.Resume)).toBeGreaterThan(ops.lastIndexOf(GatewayOpcode.Identify));
    // Heartbeats carry the last sequence number.
    const beat = alice.lab.sent.find((f) => f.op === GatewayOpcode.Heartbeat);
    expect(typeof beat?.d === 'number' || beat?.d === null).toBe(true);
  });

  it('after an Invalid Session it identifies afresh and reconciles lobbies from READY', async () => {
    const { alice, bob, lobbyId } = await pair();
    // A second lobby alice leaves from another device while her first client is away.
    const otherSecret = newSecret();
    const otherLobby = await alice.client.createOrJoinLobby(otherSecret);
    const aliceElsewhere = await guest(alice.deviceId);
    expect(aliceElsewhere.userId).toBe(alice.userId);

    alice.lab.blocked = true;
    alice.lab.cut();
    await waitFor(() => alice.client.getStatus() === ClientStatus.Reconnecting, 'reconnecting');
    await bob.client.leaveLobby(lobbyId);
    await aliceElsewhere.client.leaveLobby(otherLobby);
    // Wait out the resume window so the old session is gone.
    await sleep(2500);
    const mark = alice.events.length;
    alice.lab.blocked = false;

    await waitFor(() => alice.client.getStatus() === ClientStatus.Ready, 'ready again', 10_000);
    const after = alice.events.slice(mark);
    const ops = alice.lab.sentOps();
    expect(ops.lastIndexOf(GatewayOpcode.Identify)).toBeGreaterThan(ops.lastIndexOf(GatewayOpcode.Resume));
    expect(after).toContainEqual(['lobbyMemberRemoved', lobbyId, bob.userId]);
    expect(after).toContainEqual(['lobbyDeleted', otherLobby]);
    expect(alice.client.getLobbyIds()).toContain(lobbyId);
    expect(alice.client.getLobbyIds()).not.toContain(otherLobby);
    expect(alice.client.getLobbyHandle(lobbyId)?.lobbyMemberIds()).toEqual([alice.userId]);
  });

  it('survives a server restart: op 7, then a fresh session with the same lobby', async () => {
    const restartable = await startTestServer({ presenceGraceMs: 50 });
    try {
      const alice = await connectGuest(restartable);
      guests.push(alice);
      const lobbyId = await alice.client.createOrJoinLobby(newSecret());
      const before = alice.events.length;
      await restartable.restart();
      await waitFor(() => alice.client.getStatus() === ClientStatus.Ready && alice.events.length > before, 'ready after restart', 10_000);
      const statuses = eventsNamed(alice.events.slice(before), 'statusChanged').map(([s]) => s);
      expect(statuses).toEqual([ClientStatus.Reconnecting, ClientStatus.Ready]);
      expect(alice.client.getLobbyIds()).toEqual([lobbyId]);
      // The lobby never went away for the client: no delete/create pair from the new READY.
      expect(alice.events.slice(before).filter((e) => e[0] !== 'statusChanged')).toEqual([]);
      const messageId = await alice.client.sendLobbyMessage(lobbyId, 'still here');
      await waitFor(() => alice.client.getMessageHandle(messageId), 'message after restart');
      await alice.client.disconnect();
    } finally {
      await restartable.close();
    }
  });

  it('disconnect() while reconnecting stops retrying', async () => {
    const alice = await guest(newDeviceId());
    alice.lab.blocked = true;
    alice.lab.cut();
    await waitFor(() => alice.client.getStatus() === ClientStatus.Reconnecting, 'reconnecting');
    await alice.client.disconnect();
    expect(alice.client.getStatus()).toBe(ClientStatus.Disconnected);
    const sockets = alice.lab.sockets.length;
    await sleep(500);
    expect(alice.lab.sockets.length).toBe(sockets);
  });
});
