import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '@social-layer/server';
import { assertLoopback, runLobbyLoad } from '../src/load/lobbyLoad.ts';

describe('lobby load generator', () => {
  it('delivers every message of a short bounded run to every member', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sl-load-test-'));
    const server = await startServer({ port: 0, dataDir: dir, serveSamples: false, logLevel: 'error', rateLimits: false });
    try {
      const app = await server.createApplication({ name: 'load test' });
      const report = await runLobbyLoad({ url: server.url, applicationId: app.id, clients: 12, lobbySize: 4, rate: 2, seconds: 2 });
      expect(report.lobbies).toBe(3);
      expect(report.errors).toBe(0);
      expect(report.sent).toBeGreaterThanOrEqual(12 * 4 - 12);
      expect(report.expectedDeliveries).toBe(report.sent * 4);
      expect(report.delivered).toBe(report.expectedDeliveries);
      expect(report.latencyP99Ms).toBeGreaterThan(0);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses targets off this machine before sending anything', async () => {
    for (const url of ['http://10.0.0.5:3333', 'http://example.com', 'http://192.168.1.2']) {
      expect(() => assertLoopback(url)).toThrow(/loopback/);
      await expect(runLobbyLoad({ url, applicationId: '1', clients: 1, lobbySize: 1, rate: 1, seconds: 1 })).rejects.toThrow(/loopback/);
    }
    for (const url of ['http://127.0.0.1:1', 'http://localhost:1', 'http://[::1]:1']) expect(() => assertLoopback(url)).not.toThrow();
  });
});
