// The OpenAPI 3.1 document built from the route schemas: valid by the OpenAPI 3.1 meta-schema,
// one operation for every /api/ route that the server registered (collected by fastify's
// onRoute hook, so routes added later are held to this too), every route with a schema; and
// the interactive reference at /docs/api rendered in headless Chromium (screenshot under
// test-results/).
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');

let t: TestServer;
let doc: any;

beforeAll(async () => {
  t = await startTestServer();
  const res = await fetch(`${t.server.url}/api/v10/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await res.json();
}, 60_000);

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

/** `/api/v10/lobbies/:id` as OpenAPI writes it: `/api/v10/lobbies/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('names every registered /api/ route, each with its parameters and responses', () => {
    const routes = t.server.httpRoutes().filter((r) => r.url.startsWith('/api/'));
    expect(routes.length).toBeGreaterThan(40);
    // Every problem at once, so whoever adds a route sees all of theirs.
    const problems: string[] = [];
    for (const route of routes) {
      const label = `${route.method} ${route.url}`;
      const op = doc.paths?.[openApiPath(route.url)]?.[route.method.toLowerCase()];
      if (!op) {
        problems.push(`${label}: not in the document (no schema?)`);
        continue;
      }
      // Path parameters are documented, each one.
      const pathParams = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]).sort();
      const documented = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name).sort();
      if (JSON.stringify(documented) !== JSON.stringify(pathParams)) problems.push(`${label}: path parameters ${JSON.stringify(documented)}, expected ${JSON.stringify(pathParams)}`);
      // A success response, and the error shape every /api/ route can answer.
      if (!Object.keys(op.responses).some((code) => /^[23]/.test(code))) problems.push(`${label}: no 2xx/3xx response described`);
      if (!op.responses['4XX']) problems.push(`${label}: no 4XX response`);
    }
    expect(problems).toEqual([]);
  });

  it('leaves no route without a schema but the plugins\' static file routes', () => {
    const without = t.server.httpRoutes().filter((r) => !r.hasSchema && !r.url.endsWith('*'));
    expect(without).toEqual([]);
  });

  it('documents bodies, queries and security from the schemas', () => {
    const join = doc.paths['/api/v10/lobbies'].put;
    const body = join.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['secret']);
    expect(body.properties.secret).toMatchObject({ type: 'string', minLength: 1, maxLength: 250 });
    expect(body.properties.lobby_metadata['x-total-length']).toBe(1000);
    // Who may call it comes from the route table: a game's token with the SDK scope, or the web app.
    expect(join.security).toEqual([{ bearer: ['sdk.social_layer'] }, { session: [] }]);
    const history = doc.paths['/api/v10/lobbies/{id}/messages'].get;
    expect(history.parameters.find((p: any) => p.in === 'query' && p.name === 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    const token = doc.paths['/api/v10/oauth2/token'].post;
    expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(doc.components.securitySchemes.bot).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  });
  it('describes what the routes really answer: real responses validate against their documented schemas', async () => {
    // Responses are serialized with JSON.stringify, so nothing forces the documentation to stay
    // true; this holds the main shapes to it, as clients would read them.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('snowflake', /^[0-9]{1,20}$/);
    const check = (method: string, path: string, status: number | '4XX', body: unknown) => {
      const op = doc.paths[path][method];
      const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
      expect(schema, `${method} ${path} ${status} documented`).toBeDefined();
      const validate = ajv.compile(schema);
      expect(validate(body) ? [] : validate.errors, `${method} ${path}`).toEqual([]);
    };
    const alice = await t.guest('Alice');
    const bob = await t.guest('Bob');
    const token = await t.req('POST', '/partner-sdk/token', { body: { client_id: t.app.id, external_auth_type: 'DEVICE_ID', external_auth_token: 'openapi-device-0123456789' } });
    check('post', '/api/v10/partner-sdk/token', 200, token.body);
    check('get', '/api/v10/users/@me', 200, (await t.req('GET', '/users/@me', { token: alice.token })).body);
    const lobby = await t.req('PUT', '/lobbies', { token: alice.token, body: { secret: 'doc-room', lobby_metadata: { m: '1' }, member_metadata: { c: 'red' } } });
    await t.req('PUT', '/lobbies', { token: bob.token, body: { secret: 'doc-room' } });
    check('put', '/api/v10/lobbies', 200, lobby.body);
    const got = await t.req('GET', `/lobbies/${lobby.body.id}`, { token: alice.token });
    check('get', '/api/v10/lobbies/{id}', 200, got.body);
    const member = await t.req('PUT', `/lobbies/${lobby.body.id}/members/${bob.userId}`, { token: t.app.botToken, bot: true, body: { additional_name: 'Sir Bob' } });
    check('put', '/api/v10/lobbies/{id}/members/{userId}', 200, member.body);
    const sent = await t.req('POST', `/lobbies/${lobby.body.id}/messages`, { token: bob.token, body: { content: 'hi', metadata: { k: 'v' } } });
    check('post', '/api/v10/lobbies/{id}/messages', 200, sent.body);
    check('get', '/api/v10/lobbies/{id}/messages', 200, (await t.req('GET', `/lobbies/${lobby.body.id}/messages`, { token: alice.token })).body);
    await t.req('PUT', `/users/@me/relationships/${bob.userId}`, { token: alice.token });
    check('get', '/api/v10/users/@me/relationships', 200, (await t.req('GET', '/users/@me/relationships', { token: bob.token })).body);
    await t.req('PUT', `/users/@me/relationships/${alice.userId}`, { token: bob.token, body: {} });
    const activity = await t.req('PUT', '/users/@me/activities', { token: alice.token, body: { state: 'In a doc', party: { id: 'p-doc', size: [1, 4] }, secrets: { join: 'doc-secret' } } });
    check('put', '/api/v10/users/@me/activities', 200, activity.body);
    const dm = await t.req('POST', `/users/${bob.userId}/messages`, { token: alice.token, body: { content: 'psst' } });
    check('post', '/api/v10/users/{userId}/messages', 200, dm.body);
    check('get', '/api/v10/users/@me/message-summaries', 200, (await t.req('GET', '/users/@me/message-summaries', { token: alice.token })).body);
    const invite = await t.req('POST', `/users/${bob.userId}/activity-invites`, { token: alice.token, body: { content: 'join us' } });
    check('post', '/api/v10/users/{userId}/activity-invites', 200, invite.body);
    check('post', '/api/v10/users/@me/activity-invites/{inviteId}/accept', 200, (await t.req('POST', `/users/@me/activity-invites/${invite.body.id}/accept`, { token: bob.token })).body);
    check('get', '/api/v10/gateway', 200, (await t.req('GET', '/gateway')).body);
    const error = await t.req('GET', `/lobbies/${lobby.body.id}/messages?limit=0`, { token: alice.token });
    expect(error.status).toBe(400);
    check('get', '/api/v10/lobbies/{id}/messages', '4XX', error.body);
  });
});

describe('/docs/api', () => {
  it('renders the interactive reference in headless Chromium', async () => {
    mkdirSync(RESULTS, { recursive: true });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      const failures: string[] = [];
      page.on('pageerror', (e) => failures.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') failures.push(m.text());
      });
      page.on('response', (r) => {
        if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`);
      });
      const res = await page.goto(`${t.server.url}/docs/api`);
      expect(res?.status()).toBe(200);
      // swagger-ui parses the whole document in the page: on a loaded 2-core machine that alone
      // took over 30 s, so the waits are generous (nothing here measures speed).
      await page.waitForSelector('.opblock-tag', { timeout: 100_000 });
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      expect(await page.textContent('.info .title')).toContain('Social Layer HTTP API');
      const operations = await page.locator('.opblock').count();
      expect(operations).toBeGreaterThan(40);
      await page.screenshot({ path: join(RESULTS, 'openapi-docs-top.png'), fullPage: false });
      // One operation opened, as a reader would: its parameters and responses show.
      await page.locator('#operations-lobbies-get_api_v10_lobbies__id__messages .opblock-summary').click();
      await page.waitForSelector('#operations-lobbies-get_api_v10_lobbies__id__messages .parameters', { timeout: 10_000 });
      await page.screenshot({ path: join(RESULTS, 'openapi-docs.png'), fullPage: false });
      expect(failures).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
