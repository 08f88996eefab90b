// The engines field tells the truth (issue 9): the root package.json's Node range admits the Node
// that runs the tests, and the one dependency that asks for Node 22 (cookie@2.0.2, an ES module
// that fastify's light-my-request loads with require()) works here: inject with cookies both ways.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';

const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };

describe('engines', () => {
  it('the root engines range admits this Node, and says 20.19 or newer (require of ES modules)', () => {
    expect(root.engines.node).toBe('>=20.19');
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(major > 20 || (major === 20 && minor >= 19)).toBe(true);
  });

  it('cookie@2 (engines node >=22) loads through require() and fastify.inject handles cookies', async () => {
    const require = createRequire(import.meta.url);
    const lmr = require.resolve('light-my-request', { paths: [require.resolve('fastify')] });
    const cookie = createRequire(lmr)('cookie') as { stringifySetCookie: unknown };
    expect(typeof cookie.stringifySetCookie).toBe('function');
    const app = Fastify();
    app.get('/', async (req, reply) => {
      void reply.header('set-cookie', 'a=1; Path=/; HttpOnly');
      return { cookie: req.headers.cookie ?? null };
    });
    const res = await app.inject({ method: 'GET', url: '/', cookies: { session: 'x y' } });
    expect(res.json()).toEqual({ cookie: 'session=x%20y' });
    expect(res.cookies).toEqual([{ name: 'a', value: '1', path: '/', httpOnly: true }]);
    await app.close();
  });
});
