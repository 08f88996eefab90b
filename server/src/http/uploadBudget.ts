import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * One process-wide budget of upload bytes held in memory at once. Message and interaction uploads
 * are read into memory before they are stored (up to 10 files of 10 MiB per request), after the
 * caller was authorized to upload there; without a budget, many such requests at once exhaust the
 * process. A request takes bytes as its file chunks arrive and gives them all back when its
 * response has been sent or its client went away; a request that would go past the budget is
 * answered 503 with Retry-After, and nothing of it is stored.
 */
export class UploadBudget {
  private held = 0;

  constructor(private cap: number) {}

  /** Takes `bytes` if they fit; false (nothing taken) when they would pass the cap. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.cap) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }

  get heldBytes(): number {
    return this.held;
  }

  /** A new cap for what is taken from now on (what is held stays held until given back). */
  setCap(bytes: number): void {
    this.cap = bytes;
  }
}

/** 256 MiB unless SOCIAL_LAYER_UPLOAD_BUDGET_BYTES says otherwise: a few dozen full uploads at once. */
export const uploadBudget = new UploadBudget(Number(process.env.SOCIAL_LAYER_UPLOAD_BUDGET_BYTES) || 256 * 1024 * 1024);

const HELD = Symbol('uploadBytesHeld');
type Holding = FastifyRequest & { [HELD]?: number };

/** Takes `bytes` for this request; false when the process holds too much already. */
export function holdUploadBytes(req: FastifyRequest, bytes: number): boolean {
  if (!uploadBudget.take(bytes)) return false;
  (req as Holding)[HELD] = ((req as Holding)[HELD] ?? 0) + bytes;
  return true;
}

/** Gives back what the request holds (once: later calls find nothing). */
export function releaseUploadBytes(req: FastifyRequest): void {
  const held = (req as Holding)[HELD];
  if (!held) return;
  (req as Holding)[HELD] = 0;
  uploadBudget.give(held);
}

/**
 * Gives each request's bytes back once its answer is sent, or its client is gone. And an answer
 * sent before the request's body was read (an upload refused before it is read) says
 * `Connection: close`: the unread rest would otherwise meet the client's next request on that
 * connection, which then fails with a reset.
 */
export function installUploadBudget(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.raw.complete) void reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (req) => releaseUploadBytes(req));
  app.addHook('onRequestAbort', async (req) => releaseUploadBytes(req));
}
