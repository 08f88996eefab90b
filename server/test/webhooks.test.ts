import { createPrivateKey, sign } from 'node:crypto';
import { verifyKey } from 'discord-interactions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

const ALL_TYPES = ['GAME_DIRECT_MESSAGE_CREATE', 'GAME_DIRECT_MESSAGE_UPDATE', 'GAME_DIRECT_MESSAGE_DELETE', 'APPLICATION_AUTHORIZED', 'APPLICATION_DEAUTHORIZED', 'LOBBY_MESSAGE_CREATE'];

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

/** Two guests who share a lobby may DM each other: each DM is a GAME_DIRECT_MESSAGE_CREATE event. */
async function chatters(t: TestServer) {
  const a = await t.guest('Ann');
  const b = await t.guest('Bob');
  const secret = `room-${Math.random()}`;
  for (const p of [a, b]) expect((await t.req('PUT', '/lobbies', { token: p.token, body: { secret } })).status).toBe(200);
  const dm = async (content: string) => {
    const r = await t.req('POST', `/users/${b.userId}/messages`, { token: a.token, body: { content } });
    expect(r.status).toBe(200);
    return r.body as { id: string; channel_id: string };
  };
  return { a, b, dm };
}

/** The outbox row once its 2xx is recorded (the worker records answers right after, in groups). */
async function deliveredRow(t: TestServer, id: string) {
  for (let i = 0; i < 200; i++) {
    const row = await t.server.store.webhookEvents.get(id);
    if (row?.delivered_at !== null && row?.delivered_at !== undefined) return row;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`event ${id} never recorded as delivered`);
}

for (const { name, config } of databaseConfigs()) {
  describe(`webhook events (${name})`, () => {
    let t: TestServer;
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      // Loopback receivers need development mode; fast backoff so retries happen within the test.
      t = await startTestServer({ database: config(), webhooks: { allowLoopback: true, backoffBaseMs: 50, backoffMaxMs: 400, pollIntervalMs: 50 } });
      receiver = await WebhookReceiver.start();
      receiver.publicKey = (await t.server.webhooks.wire(t.app.id)).verify_key;
    });
    afterAll(async () => {
      await t.close();
      await receiver.close();
    });

    it('setting the URL sends a signed PING that must be answered 204; otherwise nothing is saved', async () => {
      expect(receiver.publicKey).toMatch(/^[0-9a-f]{64}$/);
      // Nobody listening at the URL: the PING fails and the URL is not saved.
      const gone = await WebhookReceiver.start();
      await gone.close();
      const refused = await t.server.webhooks.update(t.app.id, { event_webhooks_url: gone.url }).catch((e) => e);
      expect([refused.status, refused.code]).toEqual([400, 50035]);
      expect(refused.errors.event_webhooks_url._errors[0].code).toBe('APPLICATION_EVENT_WEBHOOKS_URL_UNVERIFIED');
      expect(await t.server.webhooks.wire(t.app.id)).toMatchObject({ event_webhooks_url: null, event_webhooks_status: 1 });

      receiver.respond = () => 204;
      const saved = await t.server.webhooks.update(t.app.id, { event_webhooks_url: receiver.url, event_webhooks_types: ALL_TYPES });
      expect(saved).toMatchObject({ event_webhooks_url: receiver.url, event_webhooks_status: 2, event_webhooks_types: ALL_TYPES });
      const ping = receiver.received.at(-1)!;
      expect(ping.body).toEqual({ version: 1, application_id: t.app.id, type: 0 });
      expect(ping.verified).toBe(true);
      expect(await verifyKey(ping.raw, ping.signature, ping.timestamp, receiver.publicKey)).toBe(true);
    });

    it('a PING that is not answered 204 within 3 s, or answered otherwise, leaves the URL unsaved', async () => {
      const slow = await WebhookReceiver.start('/slow');
      slow.publicKey = receiver.publicKey;
      // Our receiver answers PINGs itself; make this one hang on everything.
      slow.server.removeAllListeners('request');
      slow.server.on('request', () => {});
      const before = await t.server.store.webhookEvents.settings(t.app.id);
      const started = Date.now();
      const r = await t.server.webhooks.update(t.app.id, { event_webhooks_url: slow.url }).catch((e) => e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
      expect(r.errors.event_webhooks_url._errors[0].message).toContain("no response within 3000 ms");
      expect((await t.server.store.webhookEvents.settings(t.app.id))!.url).toBe(before!.url);

      const wrong = await WebhookReceiver.start('/wrong');
      wrong.server.removeAllListeners('request');
      wrong.server.on('request', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      const r2 = await t.server.webhooks.update(t.app.id, { event_webhooks_url: wrong.url }).catch((e) => e);
      expect(r2.errors.event_webhooks_url._errors[0].message).toContain('HTTP 200');
      expect((await t.server.store.webhookEvents.settings(t.app.id))!.url).toBe(before!.url);
      await slow.close();
      await wrong.close();
    });

    it('delivers each event signed, in order, with a stable id; a tampered byte or an old timestamp fails verification', async () => {
      const { dm } = await chatters(t);
      const sent: { id: string }[] = [];
      for (let i = 0; i < 5; i++) sent.push(await dm(`hello ${i}`));
      await receiver.waitFor(() => sent.every((m) => receiver.events().some((e) => e.body.event.data.id === m.id)));
      const mine = receiver.events().filter((e) => e.body.event.type === 'GAME_DIRECT_MESSAGE_CREATE' && sent.some((m) => m.id === e.body.event.data.id));
      expect(mine.map((e) => e.body.event.data.id)).toEqual(sent.map((m) => m.id));
      const first = mine[0]!;
      expect(first.body).toMatchObject({ version: 1, application_id: t.app.id, type: 1, id: expect.stringMatching(/^\d+$/), event: { type: 'GAME_DIRECT_MESSAGE_CREATE', data: { content: 'hello 0' } } });
      expect(new Date(first.body.event.timestamp).toISOString()).toBe(first.body.event.timestamp);
      expect((await deliveredRow(t, first.body.id)).last_status).toBe(204);

      // One flipped byte anywhere in the body: verifyKey refuses it.
      const tampered = first.raw.replace('hello 0', 'hello 1');
      expect(await verifyKey(tampered, first.signature, first.timestamp, receiver.publicKey)).toBe(false);
      // Another timestamp with the old signature: refused.
      expect(await verifyKey(first.raw, first.signature, String(Number(first.timestamp) + 1), receiver.publicKey)).toBe(false);
      // A replay of a genuinely signed old request: the signature is valid, the receiver's freshness check refuses it.
      const keys = await t.server.store.webhookEvents.keyPair(t.app.id);
      const old = String(Math.floor(Date.now() / 1000) - 600);
      const oldSig = sign(null, Buffer.from(old + first.raw), createPrivateKey({ key: Buffer.from(keys.private_key, 'hex'), format: 'der', type: 'pkcs8' })).toString('hex');
      expect(await verifyKey(first.raw, oldSig, old, receiver.publicKey)).toBe(true);
      expect(await receiver.check(first.raw, oldSig, old)).toBe(false);
      const replay = await fetch(receiver.url, { method: 'POST', headers: { 'x-signature-ed25519': oldSig, 'x-signature-timestamp': old, 'content-type': 'application/json' }, body: first.raw });
      expect(replay.status).toBe(401);
    });

    it('retries a failing receiver with backoff, keeps the order, and does not send later events first', async () => {
      const { dm } = await chatters(t);
      let failures = 3;
      receiver.respond = () => (failures-- > 0 ? 500 : 204);
      const start = receiver.received.length;
      const a = await dm('first');
      const b = await dm('second');
      await receiver.waitFor(() => receiver.events().some((e) => e.body.event.data.id === b.id));
      const attempts = receiver.received.slice(start).filter((r) => r.body?.type === 1);
      // Three refusals of the first, then the first, then the second: never the second before the first.
      expect(attempts.map((r) => [r.body.event.data.id, r.status])).toEqual([
        [a.id, 500],
        [a.id, 500],
        [a.id, 500],
        [a.id, 204],
        [b.id, 204],
      ]);
      // The same id on every attempt.
      expect(new Set(attempts.slice(0, 4).map((r) => r.body.id)).size).toBe(1);
      // Backoff: the gaps grow (base 50 ms, doubled, jittered to 50-100%).
      const gaps = attempts.slice(1, 4).map((r, i) => r.at - attempts[i]!.at);
      expect(gaps[0]).toBeGreaterThanOrEqual(20);
      expect(gaps[2]!).toBeGreaterThanOrEqual(90);
      const row = await deliveredRow(t, attempts[0]!.body.id);
      expect(row).toMatchObject({ attempts: 4, last_status: 204 });
      receiver.respond = () => 204;
    });

    it('event types not subscribed are skipped, not sent', async () => {
      await t.server.webhooks.update(t.app.id, { event_webhooks_types: ['APPLICATION_DEAUTHORIZED'] });
      const { dm } = await chatters(t);
      const m = await dm('not for the webhook');
      expect((await t.server.webhooks.recentDeliveries(t.app.id, 1))[0]).toMatchObject({ type: 'GAME_DIRECT_MESSAGE_CREATE', state: 'skipped', attempts: 0 });
      await t.server.webhooks.update(t.app.id, { event_webhooks_types: ALL_TYPES });
      const m2 = await dm('for the webhook');
      await receiver.waitFor(() => receiver.events().some((e) => e.body.event.data.id === m2.id));
      expect(receiver.received.some((r) => r.body?.event?.data?.id === m.id)).toBe(false);
    });

    it('"send again" delivers an event once more with its original id', async () => {
      const { dm } = await chatters(t);
      const m = await dm('again');
      await receiver.waitFor(() => receiver.events().some((e) => e.body.event.data.id === m.id));
      const eventId = receiver.events().find((e) => e.body.event.data.id === m.id)!.body.id;
      await deliveredRow(t, eventId);
      const list = await t.server.webhooks.recentDeliveries(t.app.id, 5);
      expect(list.find((d) => d.id === eventId)).toMatchObject({ state: 'delivered', attempts: 1, last_status: 204, type: 'GAME_DIRECT_MESSAGE_CREATE' });
      expect(await t.server.webhooks.resend(t.app.id, eventId)).toBe(true);
      expect(await t.server.webhooks.resend('123', eventId)).toBe(false);
      await receiver.waitFor(() => receiver.events().filter((e) => e.body.id === eventId).length === 2);
    });

    it('two nodes claiming at once: one gets the application, the other nothing; a held lease is not taken', async () => {
      // A configured application with a pending event, its queue free: its worker is stopped
      // so only the two claimers below compete.
      const t3 = await startTestServer({ database: config(), webhooks: { deliver: false, allowLoopback: true } });
      try {
        const r3 = t3.server.store.webhookEvents;
        await r3.saveSettings(t3.app.id, { url: receiver.url, status: 2, types: ['LOBBY_MESSAGE_CREATE'] });
        await t3.server.store.database.db.transaction().execute((tx) => r3.record(tx, t3.app.id, 'LOBBY_MESSAGE_CREATE', { n: 1 }));
        const now = Date.now();
        const [a, b] = await Promise.all([r3.claimApplications('node-a', now, now + 60_000, 5), r3.claimApplications('node-b', now, now + 60_000, 5)]);
        const winners = [a, b].filter((x) => x.some((s) => s.application_id === t3.app.id));
        expect(winners).toHaveLength(1);
        expect(await r3.claimApplications('node-c', Date.now(), Date.now() + 60_000, 5)).toEqual([]);
        // Released, it can be claimed again; a lease that expired too.
        await r3.releaseLease(t3.app.id, a.length > 0 ? 'node-a' : 'node-b');
        expect((await r3.claimApplications('node-c', Date.now(), Date.now() + 1, 5)).map((s) => s.application_id)).toEqual([t3.app.id]);
        await new Promise((r) => setTimeout(r, 5));
        expect(await r3.renewLease(t3.app.id, 'node-d', Date.now() + 1000)).toBe(false);
        expect((await r3.claimApplications('node-d', Date.now(), Date.now() + 60_000, 5)).map((s) => s.application_id)).toEqual([t3.app.id]);
      } finally {
        await t3.close();
      }
    });

    it('"send again" while the previous answer is still being recorded is not lost', async () => {
      const t4 = await startTestServer({ database: config(), webhooks: { deliver: false } });
      try {
        const r4 = t4.server.store.webhookEvents;
        await r4.saveSettings(t4.app.id, { url: 'https://hooks.example/x', status: 2, types: ['LOBBY_MESSAGE_CREATE'] });
        const id = (await t4.server.store.database.db.transaction().execute((tx) => r4.record(tx, t4.app.id, 'LOBBY_MESSAGE_CREATE', { n: 1 })))!;
        // The worker's order: stamp the batch, send, (requeue arrives here), record the 2xx.
        await r4.stampBatch([id], 1000);
        expect(await r4.requeue(t4.app.id, { id })).toBe(1);
        await r4.markDeliveredMany([{ id, status: 204, latencyMs: 3 }], 1000);
        expect((await r4.get(id))!.delivered_at).toBeNull();
        // Without a requeue the same steps record the delivery.
        await r4.stampBatch([id], 1001);
        await r4.markDeliveredMany([{ id, status: 204, latencyMs: 3 }], 1001);
        expect(await r4.get(id)).toMatchObject({ last_status: 204, latency_ms: 3, attempts: 1 });
        expect((await r4.get(id))!.delivered_at).not.toBeNull();
      } finally {
        await t4.close();
      }
    });

    it('rejects bad settings with 50035 and changes nothing', async () => {
      const before = await t.server.webhooks.wire(t.app.id);
      const r = await t.server.webhooks.update(t.app.id, { event_webhooks_status: 3, event_webhooks_types: ['NOPE'], event_webhooks_url: 'ftp://example.com/x' }).catch((e) => e);
      expect(r.code).toBe(50035);
      expect(Object.keys(r.errors).sort()).toEqual(['event_webhooks_status', 'event_webhooks_types', 'event_webhooks_url']);
      expect(r.errors.event_webhooks_types['0']._errors[0].code).toBe('BASE_TYPE_CHOICES');
      expect(await t.server.webhooks.wire(t.app.id)).toEqual(before);
    });

    it('sustained failure disables the URL (status 3, last error) and keeps the backlog; re-enabling delivers it', async () => {
      const t2 = await startTestServer({ database: config(), webhooks: { allowLoopback: true, backoffBaseMs: 20, backoffMaxMs: 50, pollIntervalMs: 20, retryWindowMs: 500 } });
      const r2 = await WebhookReceiver.start();
      try {
        r2.publicKey = (await t2.server.webhooks.wire(t2.app.id)).verify_key;
        await t2.server.webhooks.update(t2.app.id, { event_webhooks_url: r2.url, event_webhooks_types: ALL_TYPES });
        r2.respond = () => 503;
        const { dm } = await chatters(t2);
        const m = await dm('will wait');
        const deadline = Date.now() + 10_000;
        while ((await t2.server.webhooks.wire(t2.app.id)).event_webhooks_status !== 3) {
          if (Date.now() > deadline) throw new Error('not disabled');
          await new Promise((r) => setTimeout(r, 50));
        }
        const wire = await t2.server.webhooks.wire(t2.app.id);
        expect(wire.event_webhooks_last_error).toContain('HTTP 503');
        const tries = r2.received.filter((r) => r.body?.type === 1).length;
        expect(tries).toBeGreaterThan(2);
        await new Promise((r) => setTimeout(r, 200));
        expect(r2.received.filter((r) => r.body?.type === 1).length).toBe(tries);
        expect((await t2.server.store.webhookEvents.pending(t2.app.id)).length).toBeGreaterThan(0);

        r2.respond = () => 204;
        await t2.server.webhooks.update(t2.app.id, { event_webhooks_status: 2 });
        await r2.waitFor(() => r2.events().some((e) => e.body.event.data.id === m.id));
        expect((await t2.server.webhooks.wire(t2.app.id)).event_webhooks_status).toBe(2);
      } finally {
        await t2.close();
        await r2.close();
      }
    });

    it('an application that never set a webhook gets no outbox rows; one switched off keeps them as skipped, listed, purged after the retention; neither wakes the worker', async () => {
      const repo = t.server.store.webhookEvents;
      const never = await t.server.createApplication({ name: 'No Webhook' });
      const off = await t.server.createApplication({ name: 'Webhook Off' });
      await t.server.webhooks.update(off.id, { event_webhooks_status: 1, event_webhooks_types: ['LOBBY_MESSAGE_CREATE'] });
      const woken: string[] = [];
      const wake = repo.onRecorded;
      repo.onRecorded = (applicationId) => {
        woken.push(applicationId);
        wake?.(applicationId);
      };
      let ids: (string | null)[];
      try {
        ids = await t.server.store.database.db.transaction().execute(async (tx) => [
          await repo.record(tx, never.id, 'LOBBY_MESSAGE_CREATE', { id: 'a' }),
          await repo.record(tx, off.id, 'LOBBY_MESSAGE_CREATE', { id: 'b' }),
          await repo.record(tx, off.id, 'APPLICATION_DEAUTHORIZED', { id: 'c' }),
          // The configured application's events are still pending and wake the worker.
          await repo.record(tx, t.app.id, 'APPLICATION_DEAUTHORIZED', { user: { id: 'no-such-user' } }),
        ]);
      } finally {
        repo.onRecorded = wake;
      }
      expect(woken).toEqual([t.app.id]);
      expect(ids[0]).toBeNull();
      expect(await repo.recent(never.id)).toEqual([]);
      const rows = await Promise.all(ids.slice(1).map((id) => repo.get(id!)));
      expect(rows.map((r) => [r?.skipped_at !== null, r?.delivered_at])).toEqual([[true, null], [true, null], [false, null]]);
      expect(await repo.pending(off.id)).toEqual([]);
      expect((await t.server.webhooks.recentDeliveries(off.id, 5)).map((d) => [d.type, d.state])).toEqual([
        ['APPLICATION_DEAUTHORIZED', 'skipped'],
        ['LOBBY_MESSAGE_CREATE', 'skipped'],
      ]);
      // Past the retention the skipped ones go, as delivered events do; a pending one would have stayed.
      await repo.purgeDone(Date.now() + 1);
      expect(await repo.get(ids[1]!)).toBeUndefined();
      expect(await repo.get(ids[2]!)).toBeUndefined();
    });
  });
}
