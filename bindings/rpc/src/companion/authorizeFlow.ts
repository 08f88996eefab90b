import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

/** Opens a URL in the player's browser. */
export type UrlOpener = (url: string) => void | Promise<void>;

export interface AuthorizeInBrowserArgs {
  serverUrl: string;
  clientId: string;
  scopes: string[];
  prompt: 'none' | undefined;
  openUrl: UrlOpener;
  timeoutMs: number;
  /** Polled: the game went away, stop waiting. */
  cancelled: () => boolean;
}

/**
 * RPC AUTHORIZE: the platform's consent page in the player's own browser, where they are signed
 * in; the answer comes back to a one-shot listener on 127.0.0.1 (RFC 8252 loopback redirect, any
 * port), so the code never passes through the game's process before the player decided. With
 * `prompt: "none"` the platform skips the page when the player already granted those scopes.
 * The code is bound to that redirect URI: the game exchanges it with `redirect_uri` from the answer.
 */
export async function authorizeInBrowser(args: AuthorizeInBrowserArgs): Promise<{ code: string; redirectUri: string } | { error: string }> {
  const state = randomBytes(16).toString('base64url');
  let settle!: (r: { code: string; redirectUri: string } | { error: string }) => void;
  const result = new Promise<{ code: string; redirectUri: string } | { error: string }>((resolve) => (settle = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback' || url.searchParams.get('state') !== state) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html><meta charset="utf-8"><title>Social Layer</title><p>${code ? 'Done: you can go back to the game.' : 'The game was not authorized.'}</p>`);
    settle(code ? { code, redirectUri } : { error: error === 'access_denied' ? 'The player denied the request' : `Authorization failed (${(error ?? 'no code').slice(0, 64)})` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const query = new URLSearchParams({ response_type: 'code', client_id: args.clientId, scope: args.scopes.join(' '), redirect_uri: redirectUri, state });
  if (args.prompt) query.set('prompt', args.prompt);
  const timer = setTimeout(() => settle({ error: 'The player did not answer in time' }), args.timeoutMs);
  const poll = setInterval(() => {
    if (args.cancelled()) settle({ error: 'The game disconnected' });
  }, 500);
  try {
    await args.openUrl(`${args.serverUrl.replace(/\/+$/, '')}/oauth2/authorize?${query}`);
    return await result;
  } catch {
    return { error: 'Could not open the browser' };
  } finally {
    clearTimeout(timer);
    clearInterval(poll);
    server.close();
    server.closeAllConnections?.();
  }
}
