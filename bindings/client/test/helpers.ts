// Shared setup for the integration tests: the real server in-process on port 0 with a fresh
// SQLite database, real clients, and a WebSocket wrapper that lets a test watch and disturb the
// connection (cut it, swallow heartbeat ACKs, refuse reconnects) without touching the server.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ServerOptions } from '@social-layer/server';
import WebSocket from 'ws';
import {
  AuthenticationExternalAuthType,
  AuthorizationTokenType,
  Client,
  LoggingSeverity,
  type ClientEventName,
  type ClientOptions,
  type WebSocketLike,
  type WebSocketConstructor,
} from '../src/index.ts';

export interface TestEnv {
  url: string;
  appId: string;
  /** Closes the server (Gateway sockets get op 7) and starts it again on the same port and data. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startTestServer(options: Partial<ServerOptions> = {}): Promise<TestEnv> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sl-client-test-'));
  const base = { dataDir, logLevel: 'error' as const, serveSamples: false, ...options };
  let server = await startServer({ ...base, port: 0 });
  const app = await server.createApplication({ name: 'Client tests' });
  return {
    url: server.url,
    appId: app.id,
    async restart() {
      const port = server.port;
      await server.close();
      server = await startServer({ ...base, port });
    },
    async close() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function newDeviceId(): string {
  return randomBytes(16).toString('hex');
}

export function newSecret(): string {
  return `secret-${randomBytes(8).toString('hex')}`;
}

/** Observes and disturbs the sockets of one client. Everything underneath is a real `ws` socket. */
export class SocketLab {
  readonly sockets: LabSocket[] = [];
  /** Frames the client sent, parsed, across all its sockets. */
  readonly sent: { op: number; d: unknown }[] = [];
  /** Swallow heartbeat ACKs (op 11) so the client sees a zombie connection. */
  dropAcks = false;
  /** Point new sockets at a closed port, as if the network were down. */
  blocked = false;

  readonly ctor: WebSocketConstructor;

  constructor() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const lab = this;
    this.ctor = class extends LabSocket {
      constructor(url: string) {
        super(lab, url);
      }
    };
  }

  get current(): LabSocket | undefined {
    return this.sockets.at(-1);
  }

  /** Cuts the live connection without a closing handshake, as a network failure would. */
  cut(): void {
    this.current?.terminate();
  }

  sentOps(): number[] {
    return this.sent.map((f) => f.op);
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export class LabSocket implements WebSocketLike {
  private readonly ws: WebSocket;
  onopen: ((event: any) => void) | null = null;
  onmessage: ((event: any) => void) | null = null;
  onclose: ((event: any) => void) | null = null;
  onerror: ((event: any) => void) | null = null;

  constructor(
    private readonly lab: SocketLab,
    readonly url: string,
  ) {
    lab.sockets.push(this);
    this.ws = new WebSocket(lab.blocked ? 'ws://127.0.0.1:1/gateway' : url);
    this.ws.onopen = (event) => this.onopen?.(event);
    this.ws.onerror = (event) => this.onerror?.(event);
    this.ws.onclose = (event) => this.onclose?.(event);
    this.ws.onmessage = (event) => {
      if (this.lab.dropAcks && typeof event.data === 'string' && JSON.parse(event.data).op === 11) return;
      this.onmessage?.(event);
    };
  }

  get readyState(): number {
    return this.ws.readyState;
  }

  send(data: string): void {
    this.lab.sent.push(JSON.parse(data));
    this.ws.send(data);
  }

  close(code?: number, reason?: string): void {
    this.ws.close(code, reason);
  }

  terminate(): void {
    this.ws.terminate();
  }
}

/** Every event a client emitted, in order, as [name, ...args]. */
export type EventLog = unknown[][];

const ALL_EVENTS: ClientEventName[] = [
  'statusChanged',
  'lobbyCreated',
  'lobbyDeleted',
  'lobbyUpdated',
  'lobbyMemberAdded',
  'lobbyMemberRemoved',
  'lobbyMemberUpdated',
  'messageCreated',
  'userUpdated',
];

export function recordEvents(client: Client): EventLog {
  const log: EventLog = [];
  for (const event of ALL_EVENTS) {
    client.on(event, ((...args: unknown[]) => log.push([event, ...args])) as never);
  }
  return log;
}

export function eventsNamed(log: EventLog, name: ClientEventName): unknown[][] {
  return log.filter((entry) => entry[0] === name).map((entry) => entry.slice(1));
}

export async function waitFor<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface Guest {
  client: Client;
  lab: SocketLab;
  events: EventLog;
  logs: string[];
  token: string;
  deviceId: string;
  userId: string;
}

/** A guest signed in with a device ID and connected to Ready. */
export async function connectGuest(
  env: TestEnv,
  deviceId = newDeviceId(),
  options: ClientOptions = {},
): Promise<Guest> {
  const lab = new SocketLab();
  const client = new Client({
    apiBase: env.url,
    webSocket: lab.ctor,
    reconnectBaseDelayMs: 40,
    reconnectMaxDelayMs: 200,
    ...options,
  });
  const logs: string[] = [];
  client.addLogCallback((message) => logs.push(message), LoggingSeverity.Verbose);
  client.addVoiceLogCallback((message) => logs.push(message), LoggingSeverity.Verbose);
  const events = recordEvents(client);
  const token = await client.getProvisionalToken(env.appId, AuthenticationExternalAuthType.DeviceId, deviceId);
  await client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
  await client.connect();
  const userId = client.getCurrentUserV2()?.id;
  if (!userId) throw new Error('connected without a current user');
  return { client, lab, events, logs, token: token.accessToken, deviceId, userId };
}
