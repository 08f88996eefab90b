import type { FastifyInstance } from 'fastify';

/**
 * JSON answers say `Content-Type: application/json`, exactly as the public API does. Fastify adds
 * `; charset=utf-8` to every JSON reply (its default for objects, and to any JSON type set
 * without a charset); strict clients compare the header exactly and then read every body as bytes.
 * JSON is UTF-8 by definition (RFC 8259 8.1, which defines no charset parameter), so dropping it
 * says nothing less. HTML, CSS and script pages keep their charset: only JSON media types change.
 * Only bodies the server serialized itself (strings by now) change: a stream is a file or an
 * activity's proxied answer, whose header is the file's or the game's own.
 */
export function installJsonContentType(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    if (typeof payload !== 'string') return payload;
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && JSON_WITH_CHARSET.test(type)) void reply.header('content-type', 'application/json');
    return payload;
  });
}

/** `application/json` with only a UTF-8 charset parameter (any case, any spacing). */
const JSON_WITH_CHARSET = /^application\/json\s*;\s*charset="?utf-8"?\s*$/i;
