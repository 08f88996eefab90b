/**
 * The server side of `lobby-fanout`, `lobby-join` and `presence-fanout` in a process of its own:
 * the platform node and the raw peers (rawFanoutPeer.ts's bare http + `ws` server, idle in
 * `lobby-join`; `lobby-join`'s rawJoinPeer.ts, idle in the others) live here, the senders and receiving clients in the parent.
 * That is the deployment's shape (players never share the server's event loop), so the latencies
 * are the wire's, and this process's CPU time is the server's and nothing else's.
 *
 * IPC (childProcess.ts): `ready` { url, appId, rawPort (the raw peer's ws server and its `POST
 * /messages` route), rawJoinUrl } once started; `raw` { frame }
 * writes the frame to every raw socket and answers the broadcast's start on the shared monotonic
 * clock (stats.ts `nowMs`), which is where the raw side's latency starts; `befriend` { host,
 * friends } writes friendships into the store (presence-fanout's setup); `cpu` answers this
 * process's CPU time so far, ms; `profile-start` { name } / `profile-stop` bracket a CPU profile of
 * this process under BENCH_PROFILE (lobby/profile.ts); `stop` closes everything and exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '@social-layer/server';
import { nowMs } from '../stats.ts';
import { serve } from '../childProcess.ts';
import { startProfile } from './profile.ts';
import { lobbyBenchServerOptions } from './serverOptions.ts';
import { befriend } from './befriend.ts';
import { startRawJoinPeer } from './rawJoinPeer.ts';
import { startRawFanoutPeer } from './rawFanoutPeer.ts';

const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
const server = await startServer(lobbyBenchServerOptions(dir));
const app = await server.createApplication({ name: 'bench' });
const raw = await startRawFanoutPeer();
let stopProfile: (() => Promise<void>) | undefined;
const rawJoin = await startRawJoinPeer();

serve(async (m) => {
  switch (m.type) {
    case 'raw': {
      const startedAt = nowMs();
      raw.broadcast(m.frame as string);
      return { startedAt };
    }
    case 'befriend':
      await befriend(server, m.host as string, m.friends as string[]);
      return {};
    case 'cpu': {
      const c = process.cpuUsage();
      return { ms: (c.user + c.system) / 1000 };
    }
    case 'profile-start':
      stopProfile = await startProfile(m.name as string);
      return {};
    case 'profile-stop':
      await stopProfile?.();
      return {};
    case 'stop':
      await raw.close();
      await rawJoin.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      setImmediate(() => process.exit(0));
      return {};
    default:
      throw new Error(`unknown request ${m.type}`);
  }
});
process.send!({ type: 'ready', url: server.url, appId: app.id, rawPort: raw.port, rawJoinUrl: rawJoin.url });
