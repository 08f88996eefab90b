import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { createLogger } from '../src/log/Logger.ts';
import { lazyRequestLoggerFactory } from '../src/log/lazyRequestLogger.ts';
import { cleanupTempDirs, startTestServer } from './harness.ts';

/**
 * Request loggers make their pino child on the first line they write (log/lazyRequestLogger.ts):
 * a line at a disabled level costs no child, a written line carries the request ID and the same
 * redaction as any other, and a real server's request lines still name their request.
 */
function capture(level: 'warn' | 'debug') {
  const lines: Record<string, unknown>[] = [];
  const parent = createLogger({ level, sink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  let children = 0;
  const child = parent.child;
  // Counts the children asked for (pino's children inherit this property, hence `this`); each child is pino's own.
  parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof parent.child;
  return { lines, parent: parent as unknown as FastifyBaseLogger, children: () => children };
}

afterAll(() => cleanupTempDirs());

describe('lazy request logger', () => {
  it('makes no child for lines below the level, one child for any number of lines above it', () => {
    const c = capture('warn');
    const log = lazyRequestLoggerFactory(c.parent, { reqId: 'req-7' }, {});
    log.debug({ status: 200 }, 'request completed');
    log.info('hello');
    log.trace('x');
    expect(c.children()).toBe(0);
    expect(c.lines).toEqual([]);
    expect(log.level).toBe('warn');
    log.warn({ status: 500 }, 'one');
    log.error(new Error('two'));
    expect(c.children()).toBe(1);
    expect(c.lines.map((l) => [l.reqId, l.levelName])).toEqual([['req-7', 'warn'], ['req-7', 'error']]);
    expect(c.lines[0]).toMatchObject({ msg: 'one', status: 500 });
  });

  it('keeps redaction: a credential in a message or a field never reaches the line', () => {
    const c = capture('warn');
    const log = lazyRequestLoggerFactory(c.parent, { reqId: 'req-8' }, {});
    const token = 'a'.repeat(43);
    log.error({ authorization: `Bot ${token}`, access_token: token }, `failed with Bearer ${token}`);
    expect(c.lines).toHaveLength(1);
    expect(JSON.stringify(c.lines[0])).not.toContain(token);
  });

  it('follows a level set on it, and its own children carry its bindings', () => {
    const c = capture('warn');
    const log = lazyRequestLoggerFactory(c.parent, { reqId: 'req-9' }, {});
    log.level = 'debug';
    log.debug('now written');
    log.child({ part: 'inner' }).warn('nested');
    expect(c.lines.map((l) => [l.msg, l.reqId, l.part])).toEqual([['now written', 'req-9', undefined], ['nested', 'req-9', 'inner']]);
    expect(c.parent.level).toBe('warn');
  });

  it('a route with its own level gets a real child at once, writing at that level', () => {
    const c = capture('warn');
    const log = lazyRequestLoggerFactory(c.parent, { reqId: 'req-10' }, { level: 'debug' });
    expect(c.children()).toBe(1);
    log.debug('route-level debug');
    expect(c.lines.map((l) => [l.msg, l.reqId])).toEqual([['route-level debug', 'req-10']]);
  });

  it('a real server at debug still writes each request line with its request ID', async () => {
    const lines: Record<string, unknown>[] = [];
    const t = await startTestServer({ logLevel: 'debug', logSink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    try {
      const res = await fetch(`${t.server.url}/api/v10/users/@me`);
      expect(res.status).toBe(401);
      const done = lines.filter((l) => l.msg === 'request completed' && (l.req as { route?: string } | undefined)?.route === '/api/v10/users/@me');
      expect(done).toHaveLength(1);
      expect(done[0]).toMatchObject({ status: 401, levelName: 'debug' });
      expect(typeof done[0]!.reqId).toBe('string');
    } finally {
      await t.close();
    }
  });
});
