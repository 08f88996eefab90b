import { existsSync, readFileSync, readdirSync } from 'node:fs';
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

/**
 * Whether a hosted game is an activity: its index.html says so with
 * `<meta name="social-layer-kind" content="activity">`. An activity runs framed in the web app
 * (launched from a voice channel), so the landing page says how to launch it instead of linking a
 * page that, opened alone, can only say it is an activity.
 */
export function isActivity(samplesDir: string, name: string): boolean {
  const html = readFileSync(join(samplesDir, name, 'dist', 'index.html'), 'utf8').slice(0, 4096);
  return /<meta\s+name="social-layer-kind"\s+content="activity"/i.test(html);
}

/** The start banner's lines about games: where to play what is actually hosted. */
export function gamesBanner(baseUrl: string, games: readonly string[], activities: ReadonlySet<string> = new Set()): string {
  if (games.length === 0) return 'No game is built yet: run `npm run build`, or point --games at a folder of built games.\n';
  const line = (name: string) => (activities.has(name) ? `${name}: an activity, launched in the web app (how: ${baseUrl}/)` : `${name}: ${baseUrl}/games/${name}/`);
  if (games.length === 1 && !activities.has(games[0]!)) return `Play ${games[0]}: ${baseUrl}/games/${games[0]}/\n`;
  return `Games (${games.length}): ${baseUrl}/\n${games.map((name) => `  ${line(name)}\n`).join('')}`;
}

/** The landing page's part about activities: what one is and the exact steps to launch it here. */
function activitiesSection(names: readonly string[], base: string, appId: string | undefined): string {
  if (names.length === 0) return '';
  const id = appId ?? 'APPLICATION_ID';
  const steps = names
    .map(
      (name) =>
        `<li><b>${name}</b><pre>npx social-layer apps update --app ${id} --dev --activities true \\\n` +
        `  --url-mapping /=${base}/games/${name} --url-mapping /api=http://127.0.0.1:4100 \\\n` +
        `  --url-mapping /platform=${base}\n` +
        `ACTIVITY_CLIENT_ID=${id} ACTIVITY_CLIENT_SECRET=&lt;the secret printed at first start&gt; \\\n` +
        `  node samples/${name}/server.mjs</pre></li>`,
    )
    .join('');
  return (
    `<h2>Activities</h2><p>An activity is a game that runs inside the <a href="/app">web app</a>, framed beside a voice channel, ` +
    `not as a page of its own. Enable it for the application and start its small token backend (samples/&lt;name&gt;/README.md):</p>` +
    `<ul>${steps}</ul><p>Then, in the <a href="/app">web app</a>, open a guild's voice channel and press <b>Start</b> under Activities ` +
    `(or open <code>/app/activity/${id}?channel_id=CHANNEL_ID</code>).</p>`
  );
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
  const activities = served.filter((name) => isActivity(samplesDir, name));
  const games = served.filter((name) => !activities.includes(name));
  // The landing page lists every hosted game; with exactly one (and no activity), it goes straight there.
  app.get(
    '/',
    {
      schema: {
        summary: 'Landing page: the hosted games and how to launch the activities (one game: straight there)',
        tags: ['games'],
        response: { 200: { description: 'Games list (HTML), or a text line when none is built', content: { 'text/html': { schema: Type.String() }, 'text/plain': { schema: Type.String() } } }, 302: Redirect('The one hosted game') },
      },
    },
    async (_req, reply) => {
    if (games.length === 1 && activities.length === 0) return reply.redirect(`/games/${games[0]}/`);
    if (served.length === 0) return reply.type('text/plain').send('Social Layer is running. No game is built: run `npm run build`.');
    const links = games.map((name) => `<li><a href="/games/${name}/">${name}</a></li>`).join('');
    const gameList = games.length > 0 ? `<p>Games hosted here. Open one in two tabs with the same <code>?lobby=</code> to meet yourself.</p><ul>${links}</ul>` : '';
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Social Layer games</title>` +
          `<style>body{font:16px system-ui,sans-serif;background:#12131a;color:#e6e8f0;margin:3rem auto;max-width:40rem;padding:0 1rem}a{color:#8fa8ff}li{margin:.5rem 0}` +
          `pre{background:#1c1e2a;padding:.6rem;border-radius:6px;overflow-x:auto;font-size:13px}h2{font-size:1.2rem;margin-top:2rem}</style></head>` +
          `<body><h1>Social Layer</h1>${gameList}${activitiesSection(activities, ctx.publicHttpUrl(), await applicationId())}` +
          `<p><a href="/account">Your account</a></p></body></html>`,
      );
  });
  return served;
}
