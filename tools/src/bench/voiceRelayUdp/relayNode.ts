/**
 * Child process: the real server (HTTP, Gateway, voice gateway, UDP media socket and relay) on
 * loopback. Answers `sample` with its own CPU time and the relay counters of the named lobbies.
 * DAVE's MLS messages go over the voice WebSocket, not UDP: this node uses a delivery that sends
 * none (as server/test/voiceRelay.test.ts does), so the clients need no MLS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '@social-layer/server';
import type { DaveDelivery } from '../../../../server/src/voice/dave.ts';
import { serve } from '../childProcess.ts';

const relayOnlyDave = async (): Promise<DaveDelivery> => ({
  externalSenderPayload: () => new Uint8Array([0]),
  memberConnected: () => [],
  keyPackage: () => [],
  commitWelcome: () => [],
  transitionReady: () => [],
  invalidCommitWelcome: () => [],
  memberDisconnected: () => [],
  tick: () => [],
});

const dir = mkdtempSync(join(tmpdir(), 'sl-bench-udp-'));
const server = await startServer({
  port: 0,
  host: '127.0.0.1',
  dataDir: dir,
  serveSamples: false,
  logLevel: 'error',
  rateLimits: false,
  daveFactory: relayOnlyDave,
  voiceUdpHost: '127.0.0.1',
});
const app = await server.createApplication({ name: 'voice-relay-udp bench' });

serve(async (m) => {
  if (m.type === 'sample') {
    let forwarded = 0;
    let relayed = 0;
    let dropped = 0;
    for (const lobbyId of m.lobbies as string[]) {
      const stats = server.voice.relayOf(lobbyId)?.stats;
      if (!stats) continue;
      forwarded += stats.forwarded;
      relayed += stats.relayed;
      dropped += stats.dropped;
    }
    const cpu = process.cpuUsage();
    return { cpuUs: cpu.user + cpu.system, forwarded, inbound: relayed, dropped, at: performance.now() };
  }
  if (m.type === 'stop') {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    setImmediate(() => process.exit(0));
    return {};
  }
  throw new Error(`unknown request ${m.type}`);
});
process.send!({ type: 'ready', url: server.url, appId: app.id });
