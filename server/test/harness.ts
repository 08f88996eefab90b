import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import { type DatabaseConfig, type RunningServer, type ServerOptions, startServer } from '../src/index.ts';
import { KNOWN_SCOPES, tokenScopes } from '../src/oauth2/scopes.ts';

export const PG_URL = process.env.SOCIAL_LAYER_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The two storage backends every storage-facing suite runs against. */
export function databaseConfigs(): { name: string; config: () => DatabaseConfig }[] {
  return [
    { name: 'sqlite', config: () => ({ dialect: 'sqlite', file: join(tempDir(), 'db.sqlite') }) },
    {
      name: 'postgres',
      config: () => {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        schemas.push(schema);
        return { dialect: 'postgres', connectionString: PG_URL, schema };
      },
    },
  ];
}

const schemas: string[] = [];
/** Drops the PostgreSQL schemas this test file made, so the shared database does not fill up. */
export async function dropTestSchemas(): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
}

const dirs: string[] = [];
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'sl-test-'));
  dirs.push(d);
  return d;
}
export function cleanupTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface TestServer {
  server: RunningServer;
  app: { id: string; clientSecret: string; botToken: string };
  api: string;
  /** JSON request against /api/v10; returns status and parsed body. */
  req(method: string, path: string, opts?: { token?: string; bot?: boolean; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  guest(name?: string): Promise<{ token: string; userId: string; deviceId: string }>;
  close(): Promise<void>;
}

export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const server = await startServer({ port: 0, dataDir: tempDir(), serveSamples: false, logLevel: 'error', ...options });
  const app = await server.createApplication({ name: 'Test Game' });
  const api = `${server.url}/api/v10`;
  const req: TestServer['req'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `${opts.bot ? 'Bot' : 'Bearer'} ${opts.token}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(api + path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  const guest: TestServer['guest'] = async (name) => {
    const deviceId = randomBytes(16).toString('hex');
    const r = await req('POST', '/partner-sdk/token', {
      body: { client_id: app.id, external_auth_type: 'DEVICE_ID', external_auth_token: deviceId, ...(name ? { preferred_global_name: name } : {}) },
    });
    if (r.status !== 200) throw new Error(`guest token failed: ${r.status} ${JSON.stringify(r.body)}`);
    const me = await req('GET', '/users/@me', { token: r.body.access_token });
    return { token: r.body.access_token, userId: me.body.id, deviceId };
  };
  return { server, app, api, req, guest, close: () => server.close() };
}

/** A token of the platform's own client (the web app) for `userId`: a person acting in guilds. */
export async function webToken(t: { server: RunningServer }, userId: string): Promise<string> {
  const web = await t.server.store.applications.firstParty();
  return t.server.store.tokens.issue(userId, web.id, tokenScopes([...KNOWN_SCOPES]), 3600);
}

/**
 * Switches the application's webhook off, so its events are kept (as skipped, never sent) for
 * `webhookEventsOf`: an application that never configured a webhook records none
 * (WebhookEventRepo.record).
 */
export async function keepWebhookEvents(t: TestServer, applicationId = t.app.id): Promise<void> {
  await t.server.webhooks.update(applicationId, { event_webhooks_status: 1 });
}

/** The webhook events of one type an application produced since `keepWebhookEvents`, oldest first. */
export async function webhookEventsOf(t: TestServer, type: string, applicationId = t.app.id): Promise<any[]> {
  return (await t.server.store.webhookEvents.recent(applicationId, 1000))
    .reverse()
    .filter((e) => e.type === type)
    .map((e) => JSON.parse(e.data));
}

/** A raw Gateway socket that records every frame, for protocol-level tests. */
export class RawGateway {
  readonly frames: any[] = [];
  readonly ws: WebSocket;
  closeCode: number | null = null;
  private waiters: (() => void)[] = [];

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()));
      this.wake();
    });
    this.ws.on('close', (code) => {
      this.closeCode = code;
      this.wake();
    });
    this.ws.on('error', () => {});
  }

  static async open(server: RunningServer, query = '?v=10&encoding=json'): Promise<RawGateway> {
    const g = new RawGateway(`${server.url.replace('http', 'ws')}/gateway${query}`);
    await g.next((f) => f.op === 10);
    return g;
  }

  send(payload: unknown): void {
    this.ws.send(typeof payload === 'string' ? payload : JSON.stringify(payload));
  }

  async identify(token: string, intents?: number): Promise<any> {
    this.send({ op: 2, d: { token, ...(intents === undefined ? {} : { intents }), properties: { os: 'linux', browser: 'test', device: 'test' } } });
    return (await this.next((f) => f.t === 'READY')).d;
  }

  /**
   * Waits for the first recorded frame matching `pred` (already received or future). 15 s by
   * default: a frame waited for here is one that must come, and on a loaded 2-core machine 5 s
   * was not enough (scaleOut failed once at load 23).
   */
  async next(pred: (f: any) => boolean, timeoutMs = 15_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(pred);
      if (found) return found;
      if (this.closeCode !== null) throw new Error(`socket closed (${this.closeCode}) before the frame arrived`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a frame');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async closed(timeoutMs = 5000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === null) {
      if (Date.now() > deadline) throw new Error('socket did not close');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.closeCode;
  }

  dispatches(t?: string): any[] {
    return this.frames.filter((f) => f.op === 0 && (t === undefined || f.t === t));
  }

  terminate(): void {
    this.ws.terminate();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
