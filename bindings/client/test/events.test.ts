// Event delivery modes: queued until runCallbacks(), and the native setXxxCallback slots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientStatus } from '../src/index.ts';
import { connectGuest, newSecret, startTestServer, waitFor, type Guest, type TestEnv } from './helpers.ts';

let env: TestEnv;
const guests: Guest[] = [];

beforeAll(async () => {
  env = await startTestServer();
});

afterAll(async () => {
  for (const guest of guests) await guest.client.destroy();
  await env?.close();
});

describe('event delivery', { timeout: 20_000 }, () => {
  it('queueEvents holds every event until runCallbacks()', async () => {
    const g = await connectGuest(env, undefined, { queueEvents: true });
    guests.push(g);
    // connect() resolved, but no statusChanged has been delivered yet.
    expect(g.events).toEqual([]);
    g.client.runCallbacks();
    expect(g.events.map((e) => e[0])).toContain('statusChanged');
    expect(g.events.at(-1)).toEqual(['statusChanged', ClientStatus.Ready, 0, 0]);

    const lobbyId = await g.client.createOrJoinLobby(newSecret());
    const messageId = await g.client.sendLobbyMessage(lobbyId, 'queued');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(g.events.some((e) => e[0] === 'messageCreated')).toBe(false);
    g.client.runCallbacks();
    expect(g.events).toContainEqual(['lobbyCreated', lobbyId]);
    expect(g.events).toContainEqual(['messageCreated', messageId]);
  });

  it('setXxxCallback keeps one slot per event beside on() listeners', async () => {
    const g = await connectGuest(env);
    guests.push(g);
    const first: string[] = [];
    const second: string[] = [];
    const viaOn: string[] = [];
    g.client.setMessageCreatedCallback((id) => first.push(id));
    g.client.setMessageCreatedCallback((id) => second.push(id));
    const off = g.client.on('messageCreated', (id) => viaOn.push(id));
    const lobbyId = await g.client.createOrJoinLobby(newSecret());
    const a = await g.client.sendLobbyMessage(lobbyId, 'a');
    await waitFor(() => second.includes(a), 'message a');
    g.client.setMessageCreatedCallback(null);
    off();
    const b = await g.client.sendLobbyMessage(lobbyId, 'b');
    await waitFor(() => g.events.some((e) => e[0] === 'messageCreated' && e[1] === b), 'message b');
    expect(first).toEqual([]);
    expect(second).toEqual([a]);
    expect(viaOn).toEqual([a]);
  });

  it('handles of a destroyed client read as empty values', async () => {
    const g = await connectGuest(env);
    const lobbyId = await g.client.createOrJoinLobby(newSecret());
    const messageId = await g.client.sendLobbyMessage(lobbyId, 'bye');
    const lobby = g.client.getLobbyHandle(lobbyId);
    const message = g.client.getMessageHandle(messageId);
    const me = g.client.getCurrentUserV2();
    expect(message?.content()).toBe('bye');
    await g.client.destroy();
    expect(lobby?.lobbyMemberIds()).toEqual([]);
    expect(message?.content()).toBe('');
    expect(me?.username).toBe('');
    await expect(g.client.connect()).rejects.toMatchObject({ type: 5 });
  });
});
