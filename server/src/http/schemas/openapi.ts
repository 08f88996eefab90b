import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { BucketRule } from '../RateLimiter.ts';
import { accessOf, securityOf } from '../routeAccess.ts';
import { ErrorBody, RateLimitedBody } from './responses.ts';

export const OPENAPI_PATH = '/api/v10/openapi.json';
export const DOCS_PATH = '/docs/api';

/** Security requirement objects for route schemas (`schema: { security: BOT }`). */
type Security = { [scheme: string]: string[] }[];
export const BEARER: Security = [{ bearer: [] }];
export const BOT: Security = [{ bot: [] }];
export const BEARER_OR_BOT: Security = [{ bearer: [] }, { bot: [] }];
/** OAuth2 client authentication: HTTP Basic, or client_id (and secret) in the form. */
export const CLIENT: Security = [{ clientBasic: [] }, {}];

/**
 * The OpenAPI 3.1 document, built by @fastify/swagger from the route schemas as routes are
 * registered (so it must be registered, and awaited, before any route), served at
 * /api/v10/openapi.json, and the interactive reference (swagger-ui) at /docs/api.
 * Every operation gets the error responses every route can answer; routes that other plugins
 * add without a schema (static files) stay out of the document. The reference page's routes get
 * their rate budget from the default rule that the rate-limit hooks give routes without one.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  trackRoutes(app);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Social Layer HTTP API',
        version: '10',
        description:
          'REST API of the Social Layer platform, in the public shapes of API v10. Errors are `{code, message, errors?}`; ' +
          'field errors are HTTP 400 code 50035 with `errors` nested by field path. Rate-limit headers: X-RateLimit-Limit, -Remaining, -Reset, -Reset-After, -Bucket.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'OAuth2 or provisional access token: `Authorization: Bearer <token>`' },
          bot: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Application bot token: `Authorization: Bot <token>`' },
          clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth2 client credentials (or client_id / client_secret in the form)' },
          session: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The web app\'s own session token (the first-party application)' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      // Routes without a schema are other plugins' (static files): not part of the API.
      if (!schema) return { schema: { hide: true } as never, url };
      const response = { ...((schema.response as Record<string, unknown> | undefined) ?? {}) };
      // OpenAPI needs at least one response; a route that describes none says so.
      if (Object.keys(response).length === 0) response.default = { description: 'Not described' };
      // A response schema without its own description is named by its title ("Lobby") in the page.
      for (const [code, value] of Object.entries(response)) {
        const r = value as { description?: string; title?: string; type?: unknown; items?: { title?: string } };
        if (r && typeof r === 'object' && r.description === undefined && /^2/.test(code)) {
          response[code] = { ...r, description: r.title ?? (r.type === 'array' && r.items?.title ? `List of ${r.items.title}` : 'OK') };
        }
      }
      if (url.startsWith('/api/')) {
        response['4XX'] ??= { description: 'Error (`{code, message, errors?}`)', ...ErrorBody };
        response['429'] ??= { description: 'Rate limited', ...RateLimitedBody };
      }
      // Who may call it comes from the one table (routeAccess.ts), never from the route's own words;
      // the client-authenticated OAuth2 endpoints keep their own (client credentials).
      const access = url.startsWith('/api/') ? accessOf([route.method].flat().find((m) => m !== 'HEAD') ?? 'GET', url) : undefined;
      const security = access && !(access.open && schema.security) ? securityOf(access) : schema.security;
      return { schema: { ...schema, response, ...(security ? { security } : {}) } as never, url };
    },
  });

  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 0 },
    // The page runs swagger-ui's own bundle from /docs/api/static and talks to this origin only.
    // swagger-ui sets style attributes as it renders, so styles (never scripts) may be inline.
    staticCSP:
      "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; frame-ancestors 'self'; " +
      "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'",
  });

  app.get(
    OPENAPI_PATH,
    {
      schema: {
        summary: 'This document (OpenAPI 3.1)',
        tags: ['meta'],
        response: { 200: Type.Record(Type.String(), Type.Unknown(), { description: 'OpenAPI 3.1 document' }) },
      },
      config: { rateLimit: DOCS_RATE },
    },
    async (_req, reply) => {
      void reply.header('cache-control', 'public, max-age=60');
      return app.swagger() as unknown as Record<string, unknown>;
    },
  );
}

const DOCS_RATE: BucketRule = { bucket: 'docs', limit: 60, windowMs: 10_000 };

/** One registered route, as the onRoute hook saw it (HEAD routes that fastify adds for GETs left out). */
export interface RegisteredRoute {
  method: string;
  url: string;
  /** Whether the route declared a schema (plugins' static-file routes do not). */
  hasSchema: boolean;
}

const routeTables = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Records every route registered from now on, so a test can hold the document against them. */
function trackRoutes(app: FastifyInstance): void {
  const table: RegisteredRoute[] = [];
  routeTables.set(app, table);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method === 'HEAD') continue;
      table.push({ method, url: route.url, hasSchema: route.schema !== undefined });
    }
  });
}

export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return routeTables.get(app) ?? [];
}
