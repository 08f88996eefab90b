// The developer portal's webhook section over HTTP: URL with its PING, on/off, event types, the
// verify key, the platform's last error, recent deliveries and "send again".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

let t: TestServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  // Development mode: the receiver is on loopback.
  t = await startTestServer({ dev: true, accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } }, webhooks: { pollIntervalMs: 50 } });
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  cleanupTempDirs();
});

describe('developer portal: webhook events', () => {
  it('saves a PING-verified URL and types, lists deliveries, and sends one again', async () => {
    const dev = new PageSession(t.server.url);
    await dev.signUp('hook_dev');
    const csrf = PageSession.csrf((await dev.get('/developers')).text);
    const created = await dev.submit('/developers/applications', { csrf, name: 'Hook Game' });
    const appId = /<code class="copy" id="client-id">([^<]+)<\/code>/.exec(created.text)![1]!;
    const page = await dev.get(`/developers/applications/${appId}`);
    const verifyKey = /<code class="copy" id="verify-key">([0-9a-f]{64})<\/code>/.exec(page.text)![1]!;
    receiver.publicKey = verifyKey;
    expect(page.text).toContain('data-status="1"');

    // A URL nobody answers: the page says why, nothing is saved.
    const gone = await WebhookReceiver.start();
    await gone.close();
    const refused = await dev.post(`/developers/applications/${appId}/webhooks`, { csrf, action: 'save', event_webhooks_url: gone.url, enabled: '1', type_LOBBY_MESSAGE_CREATE: '1' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('did not answer the PING with 204');
    expect((await t.server.webhooks.wire(appId)).event_webhooks_url).toBeNull();

    const saved = await dev.post(`/developers/applications/${appId}/webhooks`, { csrf, action: 'save', event_webhooks_url: receiver.url, enabled: '1', type_LOBBY_MESSAGE_CREATE: '1' });
    expect(saved.status).toBe(303);
    expect(await t.server.webhooks.wire(appId)).toMatchObject({ event_webhooks_url: receiver.url, event_webhooks_status: 2, event_webhooks_types: ['LOBBY_MESSAGE_CREATE'] });
    expect((await dev.get(`/developers/applications/${appId}`)).text).toContain('data-status="2"');

    // An event through the real API, then the deliveries page shows it delivered.
    const guest = await t.req('POST', '/partner-sdk/token', { body: { client_id: appId, external_auth_type: 'DEVICE_ID', external_auth_token: 'd'.repeat(32) } });
    expect(guest.status).toBe(200);
    const lobby = (await t.req('PUT', '/lobbies', { token: guest.body.access_token, body: { secret: 'portal-room' } })).body;
    const msg = (await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: guest.body.access_token, body: { content: 'hi portal' } })).body;
    await receiver.waitFor(() => receiver.events().some((e) => e.body.event.data.id === msg.id));
    const eventId = receiver.events().find((e) => e.body.event.data.id === msg.id)!.body.id as string;
    let list = '';
    for (let i = 0; i < 100 && !new RegExp(`data-event-id="${eventId}"[\\s\\S]*?<span class="state">delivered`).test(list); i++) {
      list = (await dev.get(`/developers/applications/${appId}/webhooks`)).text;
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(list).toMatch(new RegExp(`data-event-id="${eventId}"[\\s\\S]*?LOBBY_MESSAGE_CREATE[\\s\\S]*?<span class="state">delivered</span><div class="small muted"><span class="attempts">1</span> attempt\\(s\\) · HTTP <span class="last-status">204</span>`));

    const again = await dev.post(`/developers/applications/${appId}/webhooks`, { csrf, action: 'resend', event_id: eventId });
    expect(again.status).toBe(303);
    await receiver.waitFor(() => receiver.events().filter((e) => e.body.id === eventId).length === 2);

    // Another developer sees neither the page nor can send again.
    const other = new PageSession(t.server.url);
    await other.signUp('hook_other');
    const otherCsrf = PageSession.csrf((await other.get('/developers')).text);
    expect((await other.get(`/developers/applications/${appId}/webhooks`)).status).toBe(404);
    expect((await other.post(`/developers/applications/${appId}/webhooks`, { csrf: otherCsrf, action: 'resend', event_id: eventId })).status).toBe(404);
    // Without the session's CSRF token: refused.
    expect((await dev.post(`/developers/applications/${appId}/webhooks`, { action: 'resend', event_id: eventId })).status).toBe(403);
    // Signed out: sign in first.
    expect((await new PageSession(t.server.url).get(`/developers/applications/${appId}/webhooks`)).status).toBe(303);
  });
});
