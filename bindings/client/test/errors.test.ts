// Failures: a bad token, local validation (which must never reach the network), calls before
// Ready, and HTTP errors carrying the ClientResult fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationExternalAuthType,
  AuthorizationTokenType,
  Client,
  ClientError,
  ClientResultError,
  ClientStatus,
  ErrorType,
  LoggingSeverity,
} from '../src/index.ts';
import { connectGuest, newSecret, sleep, SocketLab, startTestServer, type Guest, type TestEnv } from './helpers.ts';

let env: TestEnv;
const guests: Guest[] = [];

beforeAll(async () => {
  env = await startTestServer();
});

afterAll(async () => {
  for (const guest of guests) await guest.client.destroy();
  await env?.close();
});

async function rejection(promise: Promise<unknown>): Promise<ClientResultError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ClientResultError);
    return error as ClientResultError;
  }
  throw new Error('expected a rejection');
}

/** A fetch that counts requests and passes them on to the real one. */
function countingFetch(): { fetch: typeof fetch; count: () => number } {
  let n = 0;
  return {
    fetch: (input, init) => {
      n++;
      return fetch(input, init);
    },
    count: () => n,
  };
}

describe('failures', { timeout: 20_000 }, () => {
  it('an invalid token makes connect() reject and the status end in Disconnected with 4004', async () => {
    const lab = new SocketLab();
    const client = new Client({ apiBase: env.url, webSocket: lab.ctor, reconnectBaseDelayMs: 20 });
    const statuses: [number, number, number][] = [];
    client.on('statusChanged', (status, error, detail) => statuses.push([status, error, detail]));
    await client.updateToken(AuthorizationTokenType.Bearer, 'not-a-real-token-at-all');
    const error = await rejection(client.connect());
    expect(error.type).toBe(ErrorType.AuthorizationFailed);
    expect(error.errorCode).toBe(4004);
    expect(client.getStatus()).toBe(ClientStatus.Disconnected);
    expect(statuses.at(-1)).toEqual([ClientStatus.Disconnected, ClientError.UnexpectedClose, 4004]);
    expect(statuses.map(([s]) => s)).toEqual([ClientStatus.Connecting, ClientStatus.Connected, ClientStatus.Disconnected]);
    // Fatal: no retry.
    const sockets = lab.sockets.length;
    await sleep(300);
    expect(lab.sockets.length).toBe(sockets);
    expect(client.getStatus()).toBe(ClientStatus.Disconnected);
  });

  it('connect() without a token fails locally', async () => {
    const client = new Client({ apiBase: env.url });
    const error = await rejection(client.connect());
    expect(error.type).toBe(ErrorType.ValidationError);
    expect(client.getStatus()).toBe(ClientStatus.Disconnected);
  });

  it('an unreachable server makes connect() reject with a retryable NetworkError', async () => {
    const client = new Client({ apiBase: 'http://127.0.0.1:1' });
    await client.updateToken(AuthorizationTokenType.Bearer, 'whatever-token');
    const statuses: [number, number][] = [];
    client.on('statusChanged', (status, error) => statuses.push([status, error]));
    const error = await rejection(client.connect());
    expect(error.type).toBe(ErrorType.NetworkError);
    expect(error.retryable).toBe(true);
    expect(statuses.at(-1)).toEqual([ClientStatus.Disconnected, ClientError.ConnectionFailed]);
  });

  it('validation errors never reach the network', async () => {
    const counter = countingFetch();
    const g = await connectGuest(env, undefined, { fetch: counter.fetch });
    guests.push(g);
    const lobbyId = await g.client.createOrJoinLobby(newSecret());
    const requests = counter.count();
    const frames = g.lab.sent.filter((f) => f.op !== 1).length;

    const attempts: Promise<unknown>[] = [
      g.client.sendLobbyMessage(lobbyId, 'x'.repeat(2001)),
      g.client.sendLobbyMessage(lobbyId, ''),
      g.client.sendLobbyMessageWithMetadata(lobbyId, 'ok', { big: 'y'.repeat(1000) }),
      g.client.sendLobbyMessage('not-a-snowflake', 'hi'),
      g.client.createOrJoinLobby('s'.repeat(251)),
      g.client.createOrJoinLobby(''),
      g.client.createOrJoinLobbyWithMetadata(newSecret(), { n: 1 as unknown as string }, {}),
      g.client.leaveLobby('12x'),
      g.client.getLobbyMessagesWithLimit('abc', 10),
      g.client.updateProvisionalAccountDisplayName(''),
      g.client.updateProvisionalAccountDisplayName('n'.repeat(33)),
      g.client.getProvisionalToken(env.appId, AuthenticationExternalAuthType.DeviceId, 'short'),
      g.client.getProvisionalToken(env.appId, AuthenticationExternalAuthType.DeviceId, 'bad chars!'.repeat(3)),
      g.client.getProvisionalToken('app', AuthenticationExternalAuthType.DeviceId, 'a'.repeat(20)),
      g.client.getProvisionalToken(env.appId, 42 as AuthenticationExternalAuthType, 'a'.repeat(20)),
      g.client.updateToken(AuthorizationTokenType.User, 'tok'),
    ];
    for (const attempt of attempts) {
      const error = await rejection(attempt);
      expect(error.type).toBe(ErrorType.ValidationError);
      expect(error.status).toBe(0);
    }
    expect(() => g.client.setHttpRequestTimeout(0)).toThrow(ClientResultError);
    expect(counter.count()).toBe(requests);
    expect(g.lab.sent.filter((f) => f.op !== 1).length).toBe(frames);
    // 2000 characters exactly is fine.
    await g.client.sendLobbyMessage(lobbyId, 'z'.repeat(2000));
    expect(counter.count()).toBe(requests + 1);
  });

  it('calls that need the Gateway fail with ClientNotReady before Ready, without a request', async () => {
    const counter = countingFetch();
    const client = new Client({ apiBase: env.url, fetch: counter.fetch });
    const token = await client.getProvisionalToken(env.appId, AuthenticationExternalAuthType.DeviceId, 'device-'.padEnd(24, 'q'));
    await client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
    const requests = counter.count();
    for (const attempt of [
      client.createOrJoinLobby(newSecret()),
      client.sendLobbyMessage('1234567890', 'hi'),
      client.leaveLobby('1234567890'),
      client.getLobbyMessagesWithLimit('1234567890', 5),
    ]) {
      expect((await rejection(attempt)).type).toBe(ErrorType.ClientNotReady);
    }
    expect(counter.count()).toBe(requests);
    expect(client.getLobbyIds()).toEqual([]);
    expect(client.getCurrentUserV2()).toBeUndefined();
    // REST-only calls work without the Gateway.
    await client.updateProvisionalAccountDisplayName('Early Bird');
    expect(counter.count()).toBe(requests + 1);
  });

  it('HTTP errors reject with the ClientResult fields of the response', async () => {
    const alice = await connectGuest(env);
    const bob = await connectGuest(env);
    guests.push(alice, bob);
    const lobbyId = await alice.client.createOrJoinLobby(newSecret());
    const error = await rejection(bob.client.sendLobbyMessage(lobbyId, 'let me in'));
    expect(error.type).toBe(ErrorType.HTTPError);
    expect(error.status).toBe(403);
    expect(error.errorCode).toBe(50001);
    expect(JSON.parse(error.responseBody).code).toBe(50001);
    expect(error.retryable).toBe(false);
    expect(error.retryAfter).toBe(0);
    const history = await rejection(bob.client.getLobbyMessagesWithLimit(lobbyId, 10));
    expect(history.status).toBe(403);
  });

  it('never logs the token', async () => {
    const g = await connectGuest(env);
    guests.push(g);
    const lobbyId = await g.client.createOrJoinLobby(newSecret());
    await g.client.sendLobbyMessage(lobbyId, 'log me');
    g.lab.cut();
    await new Promise((resolve) => g.client.on('statusChanged', (s) => s === ClientStatus.Ready && resolve(undefined)));
    expect(g.logs.length).toBeGreaterThan(5);
    for (const line of g.logs) expect(line).not.toContain(g.token);
    expect(LoggingSeverity.Verbose).toBe(1);
  });
});
