import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance } from 'fastify';
import { Errors } from '../ApiError.ts';
import type { BucketRule } from '../RateLimiter.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { Redirect, Type } from '../schemas/index.ts';

/**
 * The SDK's API reference, TypeDoc HTML generated from the packages' doc comments (`npm run
 * docs:sdk`, part of `npm run build`; docs/typedoc.json) into server/web/sdk-docs/, which the
 * published server carries. Served at /docs/sdk/ beside the HTTP API reference at /docs/api.
 */
export const SDK_DOCS_DIR = fileURLToPath(new URL('../../../web/sdk-docs/', import.meta.url));

/** A reference page loads a few scripts, styles and icons at once: a budget sized for browsing. */
const DOCS_LIMIT: BucketRule = { bucket: 'docs.sdk', limit: 600, windowMs: 10_000, key: 'address' };

export async function sdkDocsRoutes(app: FastifyInstance, _ctx: ServerContext): Promise<void> {
  const built = existsSync(join(SDK_DOCS_DIR, 'index.html'));
  app.get(
    '/docs/sdk',
    {
      schema: { summary: 'SDK API reference (TypeDoc): redirects to /docs/sdk/', tags: ['docs'], response: { 302: Redirect('The reference') } },
      config: { rateLimit: DOCS_LIMIT },
    },
    async (_req, reply) => reply.redirect('/docs/sdk/'),
  );
  if (!built) {
    app.get(
      '/docs/sdk/',
      {
        schema: { summary: 'SDK API reference (not built here)', tags: ['docs'], response: { 200: { description: 'How to build it', content: { 'text/plain': { schema: Type.String() } } } } },
        config: { rateLimit: DOCS_LIMIT },
      },
      async (_req, reply) => reply.type('text/plain').send('The SDK reference is not built on this server: run `npm run docs:sdk` (npm run build does).'),
    );
    return;
  }
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...((route.config ?? {}) as object), rateLimit: DOCS_LIMIT } as typeof route.config;
    });
    // Traversal and malformed paths are the caller's mistake: 404, as the games' static files answer.
    scope.setErrorHandler((err: FastifyError, req, reply) => {
      const status = err.statusCode ?? (err as { status?: number }).status;
      if (typeof status !== 'number' || status < 400 || status >= 500) throw err;
      req.log.debug({ status, code: err.code }, 'static file refused');
      return reply.code(status === 405 ? 405 : 404).type('application/json').send(Errors.notFound().body());
    });
    await scope.register(fastifyStatic, { root: SDK_DOCS_DIR, prefix: '/docs/sdk/', decorateReply: false });
  });
}
