// The voice gateway's version (spec, voice gateway): one must be passed, 4 to 8 are served and
// each gets its own Hello; none, or a discontinued or unknown one, is closed with 4020.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

/** The first thing the voice gateway does: a Hello frame, or a close code. */
function firstAnswer(query: string): Promise<{ hello?: { v: number }; close?: number }> {
  const ws = new WebSocket(`${t.server.url.replace('http', 'ws')}/voice${query}`);
  return new Promise((resolve, reject) => {
    ws.once('message', (data) => {
      const frame = JSON.parse(String(data)) as { op: number; d: { v: number } };
      ws.close();
      resolve(frame.op === 8 ? { hello: frame.d } : {});
    });
    ws.once('close', (code) => resolve({ close: code }));
    ws.once('error', reject);
  });
}

describe('voice gateway versions', () => {
  it('4 to 8 each get a Hello of their own version', async () => {
    for (const v of [4, 5, 6, 7, 8]) expect((await firstAnswer(`?v=${v}`)).hello?.v, `v=${v}`).toBe(v);
  });

  it('no version, one below 4 or an unknown one is closed with 4020', async () => {
    for (const query of ['', '?v=', '?v=3', '?v=1', '?v=9', '?v=10', '?v=8.0', '?v=abc']) expect((await firstAnswer(query)).close, query || '(none)').toBe(4020);
  });
});
