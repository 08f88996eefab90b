import { FRAME_HEADER_BYTES, IpcOpcode, MAX_FRAME_BYTES, RpcCloseCode } from './codes.ts';

export interface Frame {
  op: number;
  /** The parsed JSON payload; `undefined` for an empty payload. */
  data: unknown;
}

/** A framing violation; the connection is closed with `code`. */
export class FrameError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const KNOWN_OPS = new Set<number>(Object.values(IpcOpcode));

/**
 * One frame as one buffer, so that a single write puts it on the socket: discord-rpc 4 decodes
 * as if every `readable` chunk started at a frame boundary.
 */
export function encodeFrame(op: number, data: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(data ?? null), 'utf8');
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + json.length);
  frame.writeUInt32LE(op, 0);
  frame.writeUInt32LE(json.length, 4);
  json.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

/**
 * Reassembles frames from a byte stream: any split, any number of frames per chunk. It never
 * holds more than one frame's bytes: a header announcing more than MAX_FRAME_BYTES fails at
 * once, before the body arrives.
 */
export class FrameDecoder {
  /** Received chunks not yet consumed; joined only when a whole frame is there (no quadratic copying). */
  private chunks: Buffer[] = [];
  private total = 0;

  constructor(private readonly maxFrameBytes = MAX_FRAME_BYTES) {}

  /** Bytes received that do not make a whole frame yet. */
  get pending(): number {
    return this.total;
  }

  /** Adds bytes; returns the whole frames they complete, or throws FrameError. */
  push(chunk: Buffer): Frame[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.total += chunk.length;
    }
    const frames: Frame[] = [];
    while (this.total >= FRAME_HEADER_BYTES) {
      const header = this.peek(FRAME_HEADER_BYTES);
      const op = header.readUInt32LE(0);
      const length = header.readUInt32LE(4);
      if (!KNOWN_OPS.has(op)) throw new FrameError(RpcCloseCode.InvalidEncoding, `Unknown opcode ${op}`);
      if (FRAME_HEADER_BYTES + length > this.maxFrameBytes) {
        throw new FrameError(RpcCloseCode.InvalidEncoding, `Frame of ${FRAME_HEADER_BYTES + length} bytes is over the ${this.maxFrameBytes}-byte limit`);
      }
      if (this.total < FRAME_HEADER_BYTES + length) break;
      const frame = this.take(FRAME_HEADER_BYTES + length);
      frames.push({ op, data: parseBody(frame.subarray(FRAME_HEADER_BYTES)) });
    }
    return frames;
  }

  /** The first n buffered bytes, without consuming them. */
  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0]!;
    const out = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.total -= n;
    return out;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new FrameError(RpcCloseCode.InvalidEncoding, 'Frame payload is not UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new FrameError(RpcCloseCode.InvalidEncoding, 'Frame payload is not JSON');
  }
}
