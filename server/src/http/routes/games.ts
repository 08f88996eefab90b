import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';

/**
 * Hosts the built sample games under /games/<name>/ and tells them which application to use
 * (`/games/config.json`), so `npm start` is all a developer needs to play them.
 */
export async function gameRoutes(app: FastifyInstance, ctx: ServerContext, samplesDir: string, applicationId: () => Promise<string | undefined>): Promise<string[]> {
  app.get('/games/config.json', async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    return { applicationId: (await applicationId()) ?? null, apiBase: ctx.publicHttpUrl(req.raw) };
  });

  const served: string[] = [];
  if (existsSync(samplesDir)) {
    for (const name of readdirSync(samplesDir).sort()) {
      const dist = join(samplesDir, name, 'dist');
      if (!/^[a-z0-9-]+$/.test(name) || !existsSync(join(dist, 'index.html'))) continue;
      await app.register(fastifyStatic, { root: dist, prefix: `/games/${name}/`, decorateReply: false });
      served.push(name);
    }
  }
  const first = served[0];
  app.get('/', async (_req, reply) => {
    if (first) return reply.redirect(`/games/${first}/`);
    return reply.type('text/plain').send('Social Layer is running. No sample game is built: run `npm run build`.');
  });
  return served;
}
