import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort.ts';
import { haproxyConfig } from './haproxyConfig.ts';
import { type DevelopmentApplication, NodeProcess } from './NodeProcess.ts';

export interface ClusterOptions {
  /** Server nodes. Default 3. */
  nodes?: number;
  /** PostgreSQL every node stores in. Default postgres://postgres@127.0.0.1:5432/test. */
  pgUrl?: string;
  /** The PostgreSQL schema (made if missing). Default social_layer_cluster. */
  pgSchema?: string;
  /** Redis between the nodes. Default redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** Prefix of the cluster's Redis keys and channels. Default slc:. */
  redisPrefix?: string;
  /** Load balancer port; 0 or unset picks a free one. */
  port?: number;
  /** Development mode on the nodes (--dev). Default true. */
  dev?: boolean;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Environment for every node on top of this process's own (whose SOCIAL_LAYER_* are left out so they cannot override the flags). */
  env?: Record<string, string>;
  /** More `start` flags for node i (e.g. a per-node voice endpoint). */
  nodeArgs?: (index: number, port: number) => string[];
  /** Each line the nodes and HAProxy print, prefixed with who said it; default silent. */
  echo?: (line: string) => void;
  /** How long one node may take to listen. Default 60 s (tsx compiles the sources on a cold start). */
  startTimeoutMs?: number;
  /** HAProxy's health-check interval. Default 250 ms. */
  checkIntervalMs?: number;
}

export interface ClusterNodeInfo {
  index: number;
  /** The node's own listen URL (behind the load balancer; tests may talk to it directly). */
  url: string;
  /** Its process id, null while it is down. */
  pid: number | null;
}

export interface Cluster {
  /** The load balancer's URL: what clients use (API at `${url}/api/v10`, Gateway at its /gateway). */
  url: string;
  nodes: ClusterNodeInfo[];
  /** The development application the first node made on a fresh schema (null when the schema had one). */
  application: DevelopmentApplication | null;
  /** Sends a signal to node i and waits until it exited. */
  kill(index: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts node i again on its old port; resolves once it listens. */
  restart(index: number): Promise<void>;
  /** Stops every node (SIGTERM, then SIGKILL) and the load balancer. */
  stop(): Promise<void>;
}

const DEFAULTS = {
  pgUrl: 'postgres://postgres@127.0.0.1:5432/test',
  pgSchema: 'social_layer_cluster',
  redisUrl: 'redis://127.0.0.1:6379',
  redisPrefix: 'slc:',
};

/**
 * Starts `nodes` processes of the real server CLI on one PostgreSQL schema and one Redis prefix,
 * behind HAProxy (Debian's `haproxy`, on PATH). The first node starts alone, because it migrates
 * the schema and makes the development application; the rest start together after it.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const count = options.nodes ?? 3;
  const pgUrl = options.pgUrl ?? DEFAULTS.pgUrl;
  const pgSchema = options.pgSchema ?? DEFAULTS.pgSchema;
  const redisUrl = options.redisUrl ?? DEFAULTS.redisUrl;
  const redisPrefix = options.redisPrefix ?? DEFAULTS.redisPrefix;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const echo = options.echo ?? null;
  const lbPort = options.port || (await freePort());
  const url = `http://127.0.0.1:${lbPort}`;
  const dir = mkdtempSync(join(tmpdir(), 'sl-cluster-'));

  const nodes: NodeProcess[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const args = [
      '--host', '127.0.0.1',
      '--data', join(dir, `node${i}`),
      '--database-url', pgUrl,
      '--database-schema', pgSchema,
      '--redis-url', redisUrl,
      '--redis-prefix', redisPrefix,
      // Every URL handed out (apiBase, Gateway) names the load balancer, never the node.
      '--public-url', url,
      '--log-level', options.logLevel ?? 'warn',
      ...(options.dev === false ? [] : ['--dev']),
      ...(options.nodeArgs?.(i, port) ?? []),
    ];
    // The environment must not override the flags (SOCIAL_LAYER_PUBLIC_URL and the like).
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SOCIAL_LAYER_'))), ...options.env };
    nodes.push(new NodeProcess(i, port, args, env, echo));
  }

  let haproxy: ChildProcess | null = null;
  let stopped = false;
  // A test runner that dies must not leave servers behind: kill them with this process.
  const onExit = () => {
    for (const n of nodes) n.child?.kill('SIGKILL');
    haproxy?.kill('SIGKILL');
  };
  process.once('exit', onExit);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map((n) => n.stop()));
    if (haproxy && haproxy.exitCode === null) {
      const gone = new Promise((r) => haproxy!.once('exit', r));
      haproxy.kill('SIGTERM');
      await gone;
    }
    process.off('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await nodes[0]!.start(startTimeoutMs);
    await Promise.all(nodes.slice(1).map((n) => n.start(startTimeoutMs)));
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig({ port: lbPort, nodePorts: nodes.map((n) => n.port), checkIntervalMs: options.checkIntervalMs }));
    haproxy = spawn('haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let haproxyOutput = '';
    const onData = (chunk: Buffer) => {
      haproxyOutput = (haproxyOutput + chunk.toString()).slice(-16_384);
      if (echo) for (const line of chunk.toString().split('\n')) if (line.trim()) echo(`[haproxy] ${line}`);
    };
    haproxy.stdout!.on('data', onData);
    haproxy.stderr!.on('data', onData);
    const spawnError = new Promise<never>((_, reject) => {
      haproxy!.once('error', (err) => reject(new Error(`haproxy could not start (${err.message}); install Debian's haproxy package`)));
      haproxy!.once('exit', (code) => reject(new Error(`haproxy exited (${code}): ${haproxyOutput}`)));
    });
    spawnError.catch(() => {});
    await Promise.race([waitForPort(lbPort, 10_000), spawnError]);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    get nodes() {
      return nodes.map((n) => ({ index: n.index, url: n.url, pid: n.pid }));
    },
    application: nodes[0]!.application,
    kill: (i, signal = 'SIGKILL') => nodeAt(nodes, i).kill(signal),
    restart: (i) => nodeAt(nodes, i).start(startTimeoutMs),
    stop,
  };
}

function nodeAt(nodes: NodeProcess[], i: number): NodeProcess {
  const n = nodes[i];
  if (!n) throw new RangeError(`no node ${i} (the cluster has ${nodes.length})`);
  return n;
}

/** Resolves once something accepts TCP connections on the port. */
async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
