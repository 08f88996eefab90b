/**
 * Idle Gateway sessions (issue 18): how many identified, idle sessions one node holds and what
 * each costs. Our server runs alone in its process (the real startServer, SQLite, defaults except
 * the per-address caps); clients run in other processes, each from its own loopback address,
 * identify, wait for READY and heartbeat. Figures: RSS fresh (before the first client) and with
 * every session open, RSS and V8 heap + external per session, and the time to open them all.
 * The peer, in the same run: a bare fastify + ws process holding the same number of sockets with
 * the same Hello/heartbeat and a READY-sized answer (gatewayIdle/peerServer.ts).
 * Then module load accounting: what a fresh server's memory is made of (gatewayIdle/loadProbe.ts).
 *
 * Our server runs twice: compiled, as a registry install runs it (each package's dist/ on plain
 * node, gatewayIdle/ourServerCompiled.mjs; the packages are built first, every run), which
 * is what the targets are read against; and through tsx, as `npm start` runs it in the repository.
 *
 * BENCH_IDLE_SESSIONS (default 20,000) is capped by the open-file limit of one process
 * (`ulimit -n`, which an unprivileged container cannot raise): the server needs one descriptor per
 * socket. The note says when the cap applied.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, Store } from '@social-layer/server';
import type { MemoryFigures } from './gatewayIdle/memory.ts';
import type { BenchResult } from './types.ts';

const HERE = fileURLToPath(new URL('./gatewayIdle/', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const WANTED = Number(process.env.BENCH_IDLE_SESSIONS ?? 20_000);
const CLIENT_PROCESSES = Number(process.env.BENCH_IDLE_CLIENTS ?? 4);
const MB = 1024 * 1024;

function openFileLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim()) || Infinity;
  } catch {
    return Infinity;
  }
}

/** Users and tokens written straight into a fresh database (setup, not measured). */
async function prepare(dataDir: string, n: number): Promise<string[]> {
  const store = new Store(await openDatabase({ dialect: 'sqlite', file: join(dataDir, 'social-layer.sqlite') }));
  try {
    const app = await store.applications.create('gateway-idle', { approval: 'approved' });
    const tokens: string[] = [];
    for (let i = 0; i < n; i++) {
      const { user } = await store.users.findOrCreateProvisional(app.id, 'DEVICE_ID', `idle-${i}`, undefined);
      tokens.push(await store.tokens.issue(user.id, app.id, ['sdk.social_layer'], 86_400));
    }
    return tokens;
  } finally {
    await store.close();
  }
}

function start(script: string, args: string[]): ChildProcess {
  // The compiled arm (.mjs) runs on plain node: no TypeScript loader in the measured process.
  const execArgv = script.endsWith('.mjs') ? ['--expose-gc'] : ['--expose-gc', '--import', 'tsx'];
  return fork(join(HERE, script), args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** The packages' dist/ as `npm run build:packages` writes them: built on every run, so a stale build is never measured. */
function buildPackages(): void {
  execFileSync('npm', ['run', 'build:packages'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
}

function message<T>(child: ChildProcess, type: string, timeoutMs = 600_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} message in time`)), timeoutMs);
    const onMessage = (m: { type?: string }) => {
      if (m?.type !== type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`${type}: process exited ${code}`)));
  });
}

async function memoryOf(child: ChildProcess): Promise<MemoryFigures> {
  const reply = message<{ memory: MemoryFigures }>(child, 'memory');
  child.send({ type: 'memory' });
  return (await reply).memory;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

interface Run {
  fresh: MemoryFigures;
  loaded: MemoryFigures;
  ready: number;
  failed: number;
  openMs: number;
}

/** One server process, the sessions opened against it from CLIENT_PROCESSES other processes. */
async function measure(serverScript: string, serverArgs: string[], tokens: string[]): Promise<Run> {
  const server = start(serverScript, serverArgs);
  const clients: ChildProcess[] = [];
  try {
    const { url } = await message<{ url: string }>(server, 'listening', 120_000);
    await new Promise((r) => setTimeout(r, 1000));
    const fresh = await memoryOf(server);
    const per = Math.ceil(tokens.length / CLIENT_PROCESSES);
    for (let c = 0; c < CLIENT_PROCESSES; c++) {
      const child = start('clients.ts', []);
      clients.push(child);
      await message(child, 'started', 60_000);
    }
    const began = Date.now();
    const results = await Promise.all(
      clients.map((child, c) => {
        // Generous: on a loaded shared machine identifying 20,000 sessions took over 10 minutes.
        const opened = message<{ ready: number; failed: number }>(child, 'opened', 3_600_000);
        child.send({ type: 'open', job: { url, tokens: tokens.slice(c * per, (c + 1) * per), localAddress: `127.0.0.${11 + c}`, concurrency: 64 } });
        return opened;
      }),
    );
    const openMs = Date.now() - began;
    await new Promise((r) => setTimeout(r, 2000));
    const loaded = await memoryOf(server);
    return { fresh, loaded, openMs, ready: results.reduce((n, r) => n + r.ready, 0), failed: results.reduce((n, r) => n + r.failed, 0) };
  } finally {
    for (const c of clients) {
      c.send({ type: 'stop' });
      await stop(c);
    }
    await stop(server);
  }
}

/** Resident memory of a process that loaded one thing, minus nothing loaded (loadProbe.ts). */
function probe(what: string): { rss: number; heapUsed: number; external: number } {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(HERE, 'loadProbe.ts'), what], { encoding: 'utf8', timeout: 180_000 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

export default async function gatewayIdle(): Promise<BenchResult> {
  const limit = openFileLimit();
  // The server holds one descriptor per socket plus its database, listener and Redis/IPC handles.
  const sessions = Math.min(WANTED, limit - 400);
  const dataDir = mkdtempSync(join(tmpdir(), 'sl-bench-idle-'));
  try {
    const tokens = await prepare(dataDir, sessions);
    buildPackages();
    const ours = await measure('ourServerCompiled.mjs', [dataDir], tokens);
    const oursTsx = await measure('ourServer.ts', [dataDir], tokens);
    const peer = await measure('peerServer.ts', [], tokens);

    const accounting = ['node', 'fastify+ws', '@aws-sdk/client-s3', '@social-layer/dave', '@social-layer/server', 'startServer'].map((w) => ({ w, ...probe(w) }));
    const base = accounting[0]!;

    const per = (r: Run, k: keyof MemoryFigures) => (r.loaded[k] - r.fresh[k]) / r.ready;
    const heapExt = (r: Run) => (r.loaded.heapUsed + r.loaded.external - r.fresh.heapUsed - r.fresh.external) / r.ready;
    const rssAt20k = ours.fresh.rss + per(ours, 'rss') * 20_000;
    const figures: BenchResult['figures'] = {
      sessions_wanted: WANTED,
      sessions_ready_ours: ours.ready,
      sessions_failed_ours: ours.failed,
      sessions_ready_peer: peer.ready,
      open_all_s_ours: ours.openMs / 1000,
      open_all_s_peer: peer.openMs / 1000,
      open_ratio: ours.openMs / peer.openMs,
      fresh_rss_mb_ours: ours.fresh.rss / MB,
      fresh_rss_mb_peer: peer.fresh.rss / MB,
      fresh_rss_ratio: ours.fresh.rss / peer.fresh.rss,
      loaded_rss_mb_ours: ours.loaded.rss / MB,
      loaded_rss_mb_peer: peer.loaded.rss / MB,
      loaded_rss_ratio: ours.loaded.rss / peer.loaded.rss,
      rss_kb_per_session_ours: per(ours, 'rss') / 1024,
      rss_kb_per_session_peer: per(peer, 'rss') / 1024,
      rss_per_session_ratio: per(ours, 'rss') / per(peer, 'rss'),
      heap_plus_external_kb_per_session_ours: heapExt(ours) / 1024,
      heap_plus_external_kb_per_session_peer: heapExt(peer) / 1024,
      heap_plus_external_ratio: heapExt(ours) / heapExt(peer),
      rss_mb_at_20000_ours: rssAt20k / MB,
      target_rss_mb_at_20000: 400,
      target_open_s: 60,
      tsx_open_all_s_ours: oursTsx.openMs / 1000,
      tsx_fresh_rss_mb_ours: oursTsx.fresh.rss / MB,
      tsx_loaded_rss_mb_ours: oursTsx.loaded.rss / MB,
      tsx_rss_kb_per_session_ours: per(oursTsx, 'rss') / 1024,
      tsx_rss_mb_at_20000_ours: (oursTsx.fresh.rss + per(oursTsx, 'rss') * 20_000) / MB,
    };
    for (const a of accounting.slice(1)) {
      figures[`load_rss_mb_${a.w}`] = (a.rss - base.rss) / MB;
      figures[`load_heap_mb_${a.w}`] = (a.heapUsed - base.heapUsed) / MB;
    }
    figures.load_rss_mb_node_tsx_baseline = base.rss / MB;
    const notes = [
      `Run on a 2-core machine, with the client processes on the same cores as the server: times are pessimistic; memory figures are steadier.`,
      sessions < WANTED
        ? `Capped at ${sessions} sessions: this container's hard open-file limit is ${limit} per process (ulimit -Hn; not raisable without CAP_SYS_RESOURCE). rss_mb_at_20000_ours extrapolates fresh + per-session x 20,000.`
        : `All ${sessions} sessions held.`,
      "Ours is the compiled server (each package's dist/ on plain node, as installed from the registry); tsx_* is the same server through tsx, as `npm start` runs it in the repository.",
      'Per-session figures: (with sessions - fresh) / sessions, after two forced GCs in the server process (--expose-gc).',
      'load_*: a fresh process through tsx (as the repository runs the server) after loading one thing, minus a process that loaded nothing (load_rss_mb_node_tsx_baseline); startServer = a whole fresh server with no client.',
    ];
    return { description: `gateway-idle: ${sessions} identified idle Gateway sessions on one node (compiled server in its own process, ${CLIENT_PROCESSES} client processes) beside a bare fastify + ws process with the same Hello/heartbeat`, figures, notes };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
