// Setup for the social integration tests: the real server in-process (its store is at hand for
// what only an operator or a game backend does: sibling applications, bot calls), and real
// clients whose raw Gateway frames are recorded, so a test can prove that a dispatch never came.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '@social-layer/server';
import WebSocket from 'ws';
import {
  AuthenticationExternalAuthType,
  AuthorizationTokenType,
  Client,
  LoggingSeverity,
  type ClientEvents,
  type ClientOptions,
} from '../src/index.ts';
import { newDeviceId } from './helpers.ts';

export interface SocialEnv {
  server: RunningServer;
  url: string;
  app: { id: string; botToken: string };
  /** A JSON request to /api/v10 with a Bot or Bearer token. */
  api(method: string, path: string, auth: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startSocialEnv(): Promise<SocialEnv> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sl-social-test-'));
  const server = await startServer({ port: 0, dataDir, logLevel: 'error', serveSamples: false, presenceGraceMs: 50 });
  const app = await server.createApplication({ name: 'Social Game' });
  return {
    server,
    url: server.url,
    app,
    async api(method, path, auth, body) {
      const res = await fetch(`${server.url}/api/v10${path}`, {
        method,
        headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const SOCIAL_EVENTS: (keyof ClientEvents)[] = [
  'statusChanged',
  'relationshipCreated',
  'relationshipDeleted',
  'relationshipGroupsUpdated',
  'activityInviteCreated',
  'activityInviteUpdated',
  'messageCreated',
  'messageUpdated',
  'messageDeleted',
  'userUpdated',
  'lobbyCreated',
  'lobbyMemberAdded',
];

export interface Player {
  client: Client;
  userId: string;
  username: string;
  token: string;
  deviceId: string;
  /** Every event, in order, as [name, ...args]. */
  events: unknown[][];
  /** Every Gateway frame received, parsed. */
  frames: any[];
  /** REST requests made, as "METHOD path". */
  requests: string[];
}

/** A connected player: a guest of the environment's application, or any token of another one. */
export async function connectPlayer(env: SocialEnv, opts: { deviceId?: string; token?: string; name?: string; options?: ClientOptions } = {}): Promise<Player> {
  const frames: any[] = [];
  const requests: string[] = [];
  class RecordingSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      this.addEventListener('message', (e) => frames.push(JSON.parse(String(e.data))));
    }
  }
  const client = new Client({
    apiBase: env.url,
    webSocket: RecordingSocket as never,
    reconnectBaseDelayMs: 40,
    reconnectMaxDelayMs: 200,
    fetch: (input, init) => {
      requests.push(`${init?.method ?? 'GET'} ${String(input).replace(/^.*\/api\/v10/, '')}`);
      return globalThis.fetch(input, init);
    },
    ...opts.options,
  });
  const events: unknown[][] = [];
  for (const e of SOCIAL_EVENTS) client.on(e, ((...args: unknown[]) => events.push([e, ...args])) as never);
  const logs: string[] = [];
  client.addLogCallback((m) => logs.push(m), LoggingSeverity.Warning);
  const deviceId = opts.deviceId ?? newDeviceId();
  let token = opts.token;
  if (!token) token = (await client.getProvisionalToken(env.app.id, AuthenticationExternalAuthType.DeviceId, deviceId)).accessToken;
  await client.updateToken(AuthorizationTokenType.Bearer, token);
  await client.connect();
  if (opts.name) await client.updateProvisionalAccountDisplayName(opts.name);
  const me = client.getCurrentUserV2()!;
  return { client, userId: me.id, username: me.username, token, deviceId, events, frames, requests };
}

export function eventsOf(p: Player, name: keyof ClientEvents): unknown[][] {
  return p.events.filter((e) => e[0] === name).map((e) => e.slice(1));
}

export function dispatchesOf(p: Player, t: string): any[] {
  return p.frames.filter((f) => f.op === 0 && f.t === t).map((f) => f.d);
}

/** Makes two players platform friends through the Client API, and waits until both see it. */
export async function befriend(a: Player, b: Player, waitFor: (check: () => unknown, what: string) => Promise<unknown>): Promise<void> {
  await a.client.sendDiscordFriendRequestById(b.userId);
  await waitFor(() => b.client.getRelationshipHandle(a.userId).discordRelationshipType() === 3, 'the request to arrive');
  await b.client.acceptDiscordFriendRequest(a.userId);
  await waitFor(() => a.client.getRelationshipHandle(b.userId).discordRelationshipType() === 1, 'the friendship to show');
}
