// The activity's backend (issue 17): the token exchange, which needs the application's secret and
// so cannot run in the browser. Mapped at /api on the proxy host: the activity calls /api/token
// (or /.proxy/api/token), which arrives here as /token. `node server.mjs` with SOCIAL_LAYER_URL,
// ACTIVITY_CLIENT_ID, ACTIVITY_CLIENT_SECRET and PORT (default 4100), or startTokenBackend() from code.
import http from 'node:http';
import { pathToFileURL } from 'node:url';

export async function startTokenBackend({ platform, clientId, clientSecret, port = 0, host = '127.0.0.1' }) {
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status, body) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    if (req.method === 'GET' && path === '/config') return json(200, { client_id: clientId, platform_origin: platform });
    if (req.method !== 'POST' || path !== '/token') return json(404, { error: 'not_found' });
    let raw = '';
    for await (const chunk of req) {
      raw += chunk;
      if (raw.length > 4096) return json(413, { error: 'too_large' });
    }
    let code;
    try {
      code = JSON.parse(raw).code;
    } catch {
      return json(400, { error: 'invalid_json' });
    }
    if (typeof code !== 'string' || code.length > 512) return json(400, { error: 'invalid_code' });
    const r = await fetch(`${platform}/api/v10/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, client_secret: clientSecret }),
    });
    const body = await r.json();
    // Only the access token goes back to the activity: the refresh token stays out of the browser.
    return r.ok ? json(200, { access_token: body.access_token, scope: body.scope, expires_in: body.expires_in }) : json(r.status, { error: body.error ?? 'exchange_failed' });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  return { server, port: server.address().port, close: () => new Promise((r) => server.close(() => r())) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  if (!env.ACTIVITY_CLIENT_ID || !env.ACTIVITY_CLIENT_SECRET) {
    console.error('Set ACTIVITY_CLIENT_ID and ACTIVITY_CLIENT_SECRET (and SOCIAL_LAYER_URL, default http://127.0.0.1:3333).');
    process.exit(2);
  }
  const b = await startTokenBackend({ platform: env.SOCIAL_LAYER_URL ?? 'http://127.0.0.1:3333', clientId: env.ACTIVITY_CLIENT_ID, clientSecret: env.ACTIVITY_CLIENT_SECRET, port: Number(env.PORT ?? 4100) });
  console.log(`token backend on http://127.0.0.1:${b.port}`);
}
