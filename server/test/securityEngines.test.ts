// The engines fields tell the truth: the root package.json's Node range admits the Node that runs
// the tests, and the packages of the lockfile that ask for a newer Node are exactly the ones the
// README names (each runs here: cookie@2.0.2 through require(), @discordjs/voice in the guild
// voice tests), so a fresh `npm install` prints no EBADENGINE line the README does not explain.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };

describe('engines', () => {
  it('the root engines range admits this Node, and says 20.19 or newer (require of ES modules)', () => {
    expect(root.engines.node).toBe('>=20.19');
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(major > 20 || (major === 20 && minor >= 19)).toBe(true);
  });

  it('the lockfile packages whose engines exclude this Node are exactly the two the README lists', () => {
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[]; link?: boolean }>;
    };
    const excluded = new Set<string>();
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      if (!path.includes('node_modules/') || entry.link || !range) continue;
      if (!semver.satisfies(process.versions.node, range, { includePrerelease: true })) {
        excluded.add(`${path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${entry.version}`);
      }
    }
    expect([...excluded].sort()).toEqual(['@discordjs/voice@0.19.2', 'cookie@2.0.2']);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const name of excluded) expect(readme).toContain(`\`${name}\``);
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
