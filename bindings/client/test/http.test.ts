// HttpApi's mapping of HTTP failures to ClientResult fields. Our server has no 429 or slow route
// to provoke, so a bare node:http responder plays those cases; it stands in for no server logic.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientResultError, ErrorType } from '../src/index.ts';
import { HttpApi } from '../src/HttpApi.ts';
import { Logger } from '../src/Logger.ts';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.endsWith('/limited')) {
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '2.5' });
      res.end(JSON.stringify({ message: 'You are being rate limited.', retry_after: 2.5, global: false }));
    } else if (req.url?.endsWith('/limited-body-only')) {
      res.writeHead(429, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'You are being rate limited.', retry_after: 0.75, global: false }));
    } else if (req.url?.endsWith('/broken')) {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html>bad gateway</html>');
    } else if (req.url?.endsWith('/slow')) {
      setTimeout(() => res.end('{}'), 1000);
    } else if (req.url?.endsWith('/auth')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ authorization: req.headers.authorization ?? null }));
    } else {
      res.writeHead(204);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function api(): HttpApi {
  return new HttpApi(base, (input, init) => fetch(input, init), new Logger());
}

async function failure(promise: Promise<unknown>): Promise<ClientResultError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientResultError);
  return error as ClientResultError;
}

describe('HttpApi error mapping', () => {
  it('429 is retryable with retryAfter from Retry-After, else from the body', async () => {
    const a = await failure(api().request({ method: 'GET', path: '/limited', auth: false }));
    expect(a).toMatchObject({ type: ErrorType.HTTPError, status: 429, retryable: true, retryAfter: 2.5 });
    expect(a.error).toBe('You are being rate limited.');
    const b = await failure(api().request({ method: 'GET', path: '/limited-body-only', auth: false }));
    expect(b.retryAfter).toBe(0.75);
  });

  it('5xx is retryable and keeps a non-JSON body', async () => {
    const error = await failure(api().request({ method: 'GET', path: '/broken', auth: false }));
    expect(error).toMatchObject({ type: ErrorType.HTTPError, status: 502, retryable: true, errorCode: 0 });
    expect(error.responseBody).toContain('bad gateway');
  });

  it('a request past the timeout is a retryable NetworkError', async () => {
    const http = api();
    http.timeoutMs = 100;
    const error = await failure(http.request({ method: 'GET', path: '/slow', auth: false }));
    expect(error).toMatchObject({ type: ErrorType.NetworkError, retryable: true, status: 0 });
    expect(error.error).toContain('timed out');
  });

  it('sends the bearer token, and refuses an authenticated call without one', async () => {
    const http = api();
    await failure(http.request({ method: 'GET', path: '/auth', auth: true })).then((e) =>
      expect(e.type).toBe(ErrorType.AuthorizationFailed),
    );
    http.token = 'abc';
    expect(await http.request({ method: 'GET', path: '/auth', auth: true })).toEqual({ authorization: 'Bearer abc' });
    expect(await http.request({ method: 'DELETE', path: '/empty', auth: false })).toBeUndefined();
  });
});
