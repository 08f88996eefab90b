// The developer portal's Interactions section over HTTP (issue 13): the public key, and the
// interactions endpoint URL verified with PINGs before it is saved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { PageSession } from './oauthHelpers.ts';
import { InteractionsApp } from './interactionsApp.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ dev: true, accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

describe('developer portal: interactions', () => {
  it('shows the public key and saves only a verified endpoint', async () => {
    const dev = new PageSession(t.server.url);
    await dev.signUp('ix_dev');
    const csrf = PageSession.csrf((await dev.get('/developers')).text);
    const created = await dev.submit('/developers/applications', { csrf, name: 'Command Game' });
    const appId = /<code class="copy" id="client-id">([^<]+)<\/code>/.exec(created.text)![1]!;
    const page = await dev.get(`/developers/applications/${appId}`);
    const key = /<code class="copy" id="interactions-public-key">([0-9a-f]{64})<\/code>/.exec(page.text)![1]!;
    expect(key).toBe(await t.server.store.webhookEvents.verifyKey(appId));

    const app = new InteractionsApp(key);
    await app.start();
    try {
      app.careless = true;
      const refused = await dev.post(`/developers/applications/${appId}/interactions`, { csrf, interactions_endpoint_url: app.url });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('could not be verified');
      expect((await t.server.interactions.endpointWire(appId)).interactions_endpoint_url).toBeNull();
      app.careless = false;
      const saved = await dev.post(`/developers/applications/${appId}/interactions`, { csrf, interactions_endpoint_url: app.url });
      expect(saved.status).toBe(303);
      expect((await t.server.interactions.endpointWire(appId)).interactions_endpoint_url).toBe(app.url);
      expect((await dev.get(`/developers/applications/${appId}`)).text).toContain(`value="${app.url}"`);
      const cleared = await dev.post(`/developers/applications/${appId}/interactions`, { csrf, interactions_endpoint_url: '' });
      expect(cleared.status).toBe(303);
      expect((await t.server.interactions.endpointWire(appId)).interactions_endpoint_url).toBeNull();
    } finally {
      await app.app.close();
    }
  });
});
