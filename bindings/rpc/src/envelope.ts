import { RpcErrorCode } from './codes.ts';

/** A command frame from a client (protocols.md 5.3). */
export interface RpcRequest {
  cmd: string;
  nonce: string | null;
  args: Record<string, unknown>;
  evt: string | null;
}

/** Every FRAME payload: responses echo `cmd` and `nonce`; events are `cmd: "DISPATCH"` with `evt`. */
export interface RpcMessage {
  cmd: string;
  nonce?: string | null;
  evt?: string | null;
  data?: unknown;
  args?: unknown;
}

/** A command failed: sent back as `evt: "ERROR"`, `data: {code, message}`. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** A handshake refused: the connection gets CLOSE `{code, message}` and ends. */
export class RpcCloseError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcCloseError';
  }
}

const MAX_NONCE = 128;

/** Checks a FRAME payload's envelope; throws RpcError 4000 with what is wrong. */
export function parseRequest(data: unknown): RpcRequest {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new RpcError(RpcErrorCode.InvalidPayload, 'The payload must be a JSON object');
  const o = data as Record<string, unknown>;
  if (typeof o.cmd !== 'string' || o.cmd.length === 0 || o.cmd.length > 64) throw new RpcError(RpcErrorCode.InvalidPayload, 'cmd must be a command name');
  let nonce: string | null = null;
  if (o.nonce !== undefined && o.nonce !== null) {
    // The C library sends an incrementing integer as a string; some clients send the number.
    if (typeof o.nonce === 'number' && Number.isFinite(o.nonce)) nonce = String(o.nonce);
    else if (typeof o.nonce === 'string' && o.nonce.length <= MAX_NONCE) nonce = o.nonce;
    else throw new RpcError(RpcErrorCode.InvalidPayload, 'nonce must be a string');
  }
  let args: Record<string, unknown> = {};
  if (o.args !== undefined && o.args !== null) {
    if (typeof o.args !== 'object' || Array.isArray(o.args)) throw new RpcError(RpcErrorCode.InvalidPayload, 'args must be an object');
    args = o.args as Record<string, unknown>;
  }
  let evt: string | null = null;
  if (o.evt !== undefined && o.evt !== null) {
    if (typeof o.evt !== 'string' || o.evt.length > 64) throw new RpcError(RpcErrorCode.InvalidPayload, 'evt must be an event name');
    evt = o.evt;
  }
  return { cmd: o.cmd, nonce, args, evt };
}
