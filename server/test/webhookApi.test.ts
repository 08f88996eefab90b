import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

/** The webhook fields of GET/PATCH /api/v10/applications/@me (Bot token), end to end. */
let t: TestServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await startTestServer({ webhooks: { allowLoopback: true } });
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  cleanupTempDirs();
});

const me = () => t.req('GET', '/applications/@me', { token: t.app.botToken, bot: true });
const patch = (body: unknown) => t.req('PATCH', '/applications/@me', { token: t.app.botToken, bot: true, body });

describe('PATCH /applications/@me webhook fields', () => {
  it('GET shows verify_key and the webhook settings; a new URL is saved after its PING is answered 204', async () => {
    const before = await me();
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ verify_key: expect.stringMatching(/^[0-9a-f]{64}$/), event_webhooks_url: null, event_webhooks_status: 1, event_webhooks_types: [] });
    receiver.publicKey = before.body.verify_key;

    const r = await patch({ event_webhooks_url: receiver.url, event_webhooks_types: ['LOBBY_MESSAGE_CREATE', 'APPLICATION_DEAUTHORIZED'] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ event_webhooks_url: receiver.url, event_webhooks_status: 2, event_webhooks_types: ['LOBBY_MESSAGE_CREATE', 'APPLICATION_DEAUTHORIZED'] });
    expect(receiver.received.filter((x) => x.body?.type === 0 && x.verified)).toHaveLength(1);
    expect((await me()).body.event_webhooks_url).toBe(receiver.url);
    // Disabling keeps the URL.
    expect((await patch({ event_webhooks_status: 1 })).body).toMatchObject({ event_webhooks_url: receiver.url, event_webhooks_status: 1 });
    expect((await patch({ event_webhooks_status: 2 })).body.event_webhooks_status).toBe(2);
  });

  it('a URL that does not answer the PING, bad types and status 3 are refused in one 50035 with the other fields, and nothing is saved', async () => {
    const gone = await WebhookReceiver.start();
    await gone.close();
    const before = (await me()).body;
    const r = await patch({ event_webhooks_url: gone.url, description: 'new description' });
    expect([r.status, r.body.code]).toEqual([400, 50035]);
    expect(r.body.errors.event_webhooks_url._errors[0].code).toBe('APPLICATION_EVENT_WEBHOOKS_URL_UNVERIFIED');
    // Flag bit 0 is not the developer's to set: a semantic error of the same edit, reported together.
    const r2 = await patch({ event_webhooks_status: 3, event_webhooks_types: ['NOT_A_TYPE'], flags: 1 });
    expect(r2.status).toBe(400);
    expect(Object.keys(r2.body.errors).sort()).toEqual(['event_webhooks_status', 'event_webhooks_types', 'flags']);
    expect(await patch({ event_webhooks_types: 'LOBBY_MESSAGE_CREATE' }).then((x) => x.body.code)).toBe(50035);
    expect((await me()).body).toEqual(before);
  });

  it('a valid webhook change is not saved when another field of the same edit is invalid', async () => {
    const other = await WebhookReceiver.start();
    other.publicKey = receiver.publicKey;
    try {
      const r = await patch({ event_webhooks_url: other.url, flags: 1 });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.errors)).toEqual(['flags']);
      // The PING went out and was answered; the URL is still not saved.
      expect(other.received.filter((x) => x.body?.type === 0)).toHaveLength(1);
      expect((await me()).body.event_webhooks_url).toBe(receiver.url);
    } finally {
      await other.close();
    }
  });

  it('outside development mode loopback and http URLs are refused', async () => {
    const prod = await startTestServer();
    try {
      for (const url of [receiver.url, receiver.url.replace('http:', 'https:'), 'https://10.0.0.1/hook', 'https://[::1]/hook']) {
        const r = await prod.req('PATCH', '/applications/@me', { token: prod.app.botToken, bot: true, body: { event_webhooks_url: url } });
        expect([r.status, r.body.code], url).toEqual([400, 50035]);
        expect(r.body.errors.event_webhooks_url, url).toBeDefined();
      }
      expect((await prod.req('GET', '/applications/@me', { token: prod.app.botToken, bot: true })).body.event_webhooks_url).toBeNull();
    } finally {
      await prod.close();
    }
  });
});
