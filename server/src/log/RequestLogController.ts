import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/** Errors that mean the client went away (closed the tab, lost the network), not a server fault. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

export function isClientAbort(err: unknown, req?: FastifyRequest): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && CLIENT_GONE.has(code)) || req?.raw.aborted === true;
}

/**
 * Fastify's request lines, at our levels: one `debug` line per finished request (method, route
 * pattern, status, time; the request serializer never logs a URL), and an aborted request is
 * `debug` too, never `error` (issue 9): a client closing its tab is nothing an operator must act on.
 * Real failures keep fastify's `error`.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {
    // One line per request is enough; the completed line carries everything.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { req: request, status: reply.statusCode, responseTime: Math.round(reply.elapsedTime) };
    if (!error) request.log.debug(fields, 'request completed');
    else if (isClientAbort(error, request)) request.log.debug(fields, 'request aborted');
    else request.log.error({ ...fields, err: error }, 'request errored');
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (isClientAbort(error, request)) request.log.debug({ req: request, status: reply.statusCode }, 'response aborted');
    else request.log.warn({ req: request, err: error }, 'response terminated with an error with headers already sent');
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'route not found');
  }
}
