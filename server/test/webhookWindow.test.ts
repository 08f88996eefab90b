// The delivery worker's in-flight window (webhooks.maxInFlight, issue 15): with more than one
// request in flight per application the receiver sees requests overlap, every event is still
// answered 2xx exactly once, and a failure in the middle neither loses an event nor sends one
// that got a 2xx again: the failed event is retried after its backoff, the ones sent behind it
// stay delivered. The default (1) sends one at a time: no overlap. SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

/** Records events straight into the outbox, each in its own transaction, as producers do. */
async function produce(t: TestServer, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await t.server.store.database.db.transaction().execute((tx) => t.server.store.webhookEvents.record(tx, t.app.id, 'LOBBY_MESSAGE_CREATE', { id: `${tag}-${i}` })))!);
  }
  return ids;
}

/** The most requests the receiver was handling at once. */
function overlap(r: WebhookReceiver): number {
  const marks = r.received.filter((x) => x.body?.type === 1).flatMap((x) => [[x.arrivedAt, 1], [x.at, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of marks) most = Math.max(most, (now += d));
  return most;
}

for (const { name, config } of databaseConfigs()) {
  describe(`webhook in-flight window (${name})`, () => {
    for (const window of [1, 4]) {
      describe(`maxInFlight ${window}`, () => {
        let t: TestServer;
        let receiver: WebhookReceiver;
        beforeAll(async () => {
          t = await startTestServer({ database: config(), webhooks: { allowLoopback: true, pollIntervalMs: 50, backoffBaseMs: 100, backoffMaxMs: 200, maxInFlight: window } });
          receiver = await WebhookReceiver.start();
          receiver.publicKey = (await t.server.webhooks.wire(t.app.id)).verify_key;
          await t.server.webhooks.update(t.app.id, { event_webhooks_url: receiver.url, event_webhooks_types: ['LOBBY_MESSAGE_CREATE'] });
        });
        afterAll(async () => {
          await t?.close();
          await receiver?.close();
        });

        it('every event answered 2xx exactly once; a failure in the middle is retried, nothing after it is sent twice', async () => {
          // Held back until all are recorded, so they go out as one batch.
          const db = t.server.store.database.db;
          await db.updateTable('webhook_settings').set({ lease_owner: 'test-hold', lease_until: Date.now() + 60_000 }).where('application_id', '=', t.app.id).execute();
          const ids = await produce(t, 30, `w${window}`);
          const failOnce = new Set([ids[10]!]);
          receiver.respond = async (body) => {
            await new Promise((r) => setTimeout(r, 15));
            if (failOnce.delete(body.id)) return 503;
            return 204;
          };
          await t.server.store.webhookEvents.releaseLease(t.app.id, 'test-hold');
          await receiver.waitFor(() => ids.every((id) => receiver.events().some((e) => e.body.id === id)), 30_000);

          const ok = receiver.events().map((e) => e.body.id as string);
          expect(ok.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
          // No event that got a 2xx was sent again; the failed one was sent twice.
          const sends = new Map<string, number>();
          for (const r of receiver.received) if (r.body?.type === 1) sends.set(r.body.id, (sends.get(r.body.id) ?? 0) + 1);
          const history = (id: string) => `${id}: ${JSON.stringify(receiver.received.filter((r) => r.body?.id === id).map((r) => [r.status, r.arrivedAt, r.at]))} (failing ${ids[10]})`;
          for (const id of ids) expect(sends.get(id), history(id)).toBe(id === ids[10] ? 2 : 1);
          const failed = receiver.received.find((r) => r.body?.id === ids[10] && r.status === 503)!;
          expect(failed).toBeDefined();
          // The 2xx is recorded once its commit lands (the worker does not wait for it to go on).
          let stored = await t.server.store.webhookEvents.get(ids[10]!);
          for (let i = 0; i < 200 && stored!.delivered_at === null; i++) {
            await new Promise((r) => setTimeout(r, 25));
            stored = await t.server.store.webhookEvents.get(ids[10]!);
          }
          expect(stored, history(ids[10]!)).toMatchObject({ attempts: 2, last_status: 204 });
          expect(stored!.delivered_at).not.toBeNull();

          if (window === 1) {
            // One at a time: never two requests at once, and 2xx answers in id order.
            expect(overlap(receiver)).toBe(1);
            const firstOk = ids.map((id) => receiver.received.findIndex((r) => r.body?.id === id && r.status === 204));
            expect([...firstOk].sort((a, b) => a - b)).toEqual(firstOk);
          } else {
            expect(overlap(receiver), 'overlap').toBeGreaterThan(1);
            expect(overlap(receiver)).toBeLessThanOrEqual(window);
          }
        });
      });
    }
  });
}
