import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance } from 'fastify';
import { Errors } from '../ApiError.ts';
import type { BucketRule } from '../RateLimiter.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { Nullable, Redirect, Snowflake, Type } from '../schemas/index.ts';

const GameConfig = Type.Object(
  { applicationId: Nullable(Snowflake('The application the hosted games use')), apiBase: Type.String({ description: 'Origin of this server' }) },
  { title: 'GameConfig' },
);

/** A game page loads many files at once (scripts, images, sounds): a budget sized for that, per address. */
const STATIC_LIMIT: BucketRule = { bucket: 'games.static', limit: 600, windowMs: 10_000, key: 'address' };

/**
 * One game's dist/ under its prefix. @fastify/static (send) refuses traversal, `%00` and encoded
 * slashes with a 4xx error; those are the caller's mistakes, so they answer 404 (the file is not
 * there, whatever the reason) and log at debug, never a 500 with an error line (issue 9, fix 5).
 */
async function staticGame(scope: FastifyInstance, opts: { root: string; at: string }): Promise<void> {
  scope.addHook('onRoute', (route) => {
    route.config = { ...((route.config ?? {}) as object), rateLimit: STATIC_LIMIT } as typeof route.config;
  });
  scope.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err.statusCode ?? (err as { status?: number }).status;
    if (typeof status !== 'number' || status < 400 || status >= 500) throw err;
    req.log.debug({ status, code: err.code }, 'static file refused');
    return reply.code(status === 405 ? 405 : 404).type('application/json').send(Errors.notFound().body());
  });
  await scope.register(fastifyStatic, { root: opts.root, prefix: opts.at, decorateReply: false });
}

/** The repository's samples folder: what is hosted when no other games folder is named. */
export const BUNDLED_SAMPLES_DIR = fileURLToPath(new URL('../../../../samples', import.meta.url));

/** The games a folder holds: each `<name>/dist/index.html` with a URL-safe name, sorted. */
export function hostedGames(samplesDir: string): string[] {
  if (!existsSync(samplesDir)) return [];
  return readdirSync(samplesDir)
    .sort()
    .filter((name) => /^[a-z0-9-]+$/.test(name) && existsSync(join(samplesDir, name, 'dist', 'index.html')));
}

/** The start banner's lines about games: where to play what is actually hosted. */
export function gamesBanner(baseUrl: string, games: readonly string[]): string {
  if (games.length === 0) return 'No game is built yet: run `npm run build`, or point --games at a folder of built games.\n';
  if (games.length === 1) return `Play ${games[0]}: ${baseUrl}/games/${games[0]}/\n`;
  return `Games (${games.length}): ${baseUrl}/\n${games.map((name) => `  ${name}: ${baseUrl}/games/${name}/\n`).join('')}`;
}

/**
 * Hosts the built sample games under /games/<name>/ and tells them which application to use
 * (`/games/config.json`), so `npm start` is all a developer needs to play them.
 */
export async function gameRoutes(app: FastifyInstance, ctx: ServerContext, samplesDir: string, applicationId: () => Promise<string | undefined>): Promise<string[]> {
  app.get('/games/config.json', { schema: { summary: 'Which application the hosted sample games use', tags: ['games'], response: { 200: GameConfig } } }, async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    return { applicationId: (await applicationId()) ?? null, apiBase: ctx.publicHttpUrl() };
  });

  const served = hostedGames(samplesDir);
  for (const name of served) await app.register(staticGame, { root: join(samplesDir, name, 'dist'), at: `/games/${name}/` });
  // The landing page lists every hosted game; with exactly one, it goes straight there.
  app.get(
    '/',
    {
      schema: {
        summary: 'Landing page: the hosted games (one game: straight there)',
        tags: ['games'],
        response: { 200: { description: 'Games list (HTML), or a text line when none is built', content: { 'text/html': { schema: Type.String() }, 'text/plain': { schema: Type.String() } } }, 302: Redirect('The one hosted game') },
      },
    },
    async (_req, reply) => {
    if (served.length === 1) return reply.redirect(`/games/${served[0]}/`);
    if (served.length === 0) return reply.type('text/plain').send('Social Layer is running. No game is built: run `npm run build`.');
    const links = served.map((name) => `<li><a href="/games/${name}/">${name}</a></li>`).join('');
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Social Layer games</title>` +
          `<style>body{font:16px system-ui,sans-serif;background:#12131a;color:#e6e8f0;margin:3rem auto;max-width:36rem}a{color:#8fa8ff}li{margin:.5rem 0}</style></head>` +
          `<body><h1>Social Layer</h1><p>Games hosted here. Open one in two tabs with the same <code>?lobby=</code> to meet yourself.</p><ul>${links}</ul>` +
          `<p><a href="/account">Your account</a></p></body></html>`,
      );
  });
  return served;
}
