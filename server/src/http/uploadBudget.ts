import type { FastifyInstance, FastifyRequest } from 'fastify';
import { removeRequestTempDir } from './uploadTempFiles.ts';

/**
 * One process-wide budget of upload bytes in flight at once. Message and interaction uploads are
 * written to a per-request temporary folder as they arrive (up to 10 files of 10 MiB per request,
 * more with boost and paid levels), after the caller was authorized to upload there, and stay
 * there until the request is answered; without a budget, many such requests at once fill the disk.
 * A request takes bytes as its file chunks arrive and gives them all back when its response has been sent or its client went away; a request that would go past the budget is
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
 * Gives each request's bytes back, and removes its temporary upload folder (what the attachment
 * store did not take), once its answer is sent or its client is gone. And an answer
 * sent before the request's body was read (an upload refused before it is read) says
 * `Connection: close`: the unread rest would otherwise meet the client's next request on that
 * connection, which then fails with a reset.
 */
export function installUploadBudget(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.raw.complete) void reply.header('connection', 'close');
    return payload;
  });
  const done = async (req: FastifyRequest): Promise<void> => {
    releaseUploadBytes(req);
    await removeRequestTempDir(req);
  };
  app.addHook('onResponse', done);
  app.addHook('onRequestAbort', done);
}
