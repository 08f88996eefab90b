/**
 * The host side of the embedded-app SDK's postMessage protocol (protocols.md section 6), with no
 * DOM in it so it can be tested against the unmodified @discord/embedded-app-sdk. Frames are
 * `[opcode, payload]`: 0 HANDSHAKE, 1 FRAME, 2 CLOSE, 3 HELLO (legacy, ignored).
 *
 * Rules (issue 17): messages count only from the activity's window and origin, anything else is
 * ignored; frames before the handshake are ignored; a malformed frame (not an array, an unknown
 * opcode, a FRAME without a string `cmd` and `nonce`) is dropped; an oversized one, an unknown
 * command or a bad argument gets the documented error frame `{cmd, evt: "ERROR", nonce, data:
 * {code, message}}` with the SDK's RPC error codes.
 */

export const Opcode = { HANDSHAKE: 0, FRAME: 1, CLOSE: 2, HELLO: 3 } as const;

/** The SDK's RPCErrorCodes (Constants.ts) plus the RPC's unknown error. */
export const RpcError = {
  UNKNOWN_ERROR: 1000,
  INVALID_PAYLOAD: 4000,
  INVALID_COMMAND: 4002,
  INVALID_GUILD: 4003,
  INVALID_EVENT: 4004,
  INVALID_CHANNEL: 4005,
  INVALID_PERMISSIONS: 4006,
  INVALID_CLIENTID: 4007,
  INVALID_ORIGIN: 4008,
  INVALID_TOKEN: 4009,
  INVALID_USER: 4010,
  OAUTH2_ERROR: 5000,
} as const;

/** The SDK's RPCCloseCodes. */
export const CloseCode = { CLOSE_NORMAL: 1000, INVALID_CLIENTID: 4000, INVALID_ORIGIN: 4001, INVALID_VERSION: 4004, INVALID_ENCODING: 4005 } as const;

/** Events an activity may subscribe to on this host. */
export const HOST_EVENTS = new Set(['VOICE_STATE_UPDATE', 'SPEAKING_START', 'SPEAKING_STOP', 'ACTIVITY_LAYOUT_MODE_UPDATE', 'ORIENTATION_UPDATE', 'CURRENT_USER_UPDATE', 'ENTITLEMENT_CREATE', 'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE', 'RELATIONSHIP_UPDATE']);

/** A frame larger than this (JSON) is refused with INVALID_PAYLOAD: no command needs more. */
export const MAX_FRAME_CHARS = 64 * 1024;

export class HostError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export interface MessageLike {
  origin: string;
  source: unknown;
  data: unknown;
}

export interface PostTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

export type CommandHandler = (args: Record<string, unknown>, cmd: string) => Promise<unknown> | unknown;

export interface HostOptions {
  applicationId: string;
  frameId: string;
  /** The activity's window (the iframe's contentWindow) and origin: the only accepted sender. */
  source: unknown;
  origin: string;
  target: PostTarget;
  handlers: Record<string, CommandHandler>;
  /** READY's data: `{v: 1, config, user}`. */
  ready(): unknown;
  /** Called on a CLOSE from the activity or a refused handshake. */
  onClose?(code: number, message?: string): void;
  /** Called once per subscription: the host may send the event's current state at once. */
  onSubscribe?(evt: string, args: Record<string, unknown>): void;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class EmbeddedAppHost {
  private handshaken = false;
  private closed = false;
  readonly subscriptions = new Set<string>();

  constructor(private readonly o: HostOptions) {}

  get ready(): boolean {
    return this.handshaken && !this.closed;
  }

  /** Feed every `message` event of the host window here. */
  handleMessage(event: MessageLike): void {
    if (this.closed || event.source !== this.o.source || event.origin !== this.o.origin) return;
    const tuple = event.data;
    if (!Array.isArray(tuple) || tuple.length !== 2 || typeof tuple[0] !== 'number') return;
    const [opcode, payload] = tuple as [number, unknown];
    if (opcode === Opcode.HANDSHAKE) return this.handshake(payload);
    if (opcode === Opcode.CLOSE) {
      this.closed = true;
      const p = isObject(payload) ? payload : {};
      return this.o.onClose?.(typeof p.code === 'number' ? p.code : CloseCode.CLOSE_NORMAL, typeof p.message === 'string' ? p.message.slice(0, 200) : undefined);
    }
    if (opcode === Opcode.FRAME && this.handshaken) void this.frame(payload);
  }

  /** Sends an event to the activity if it subscribed to it. */
  dispatch(evt: string, data: unknown): boolean {
    if (!this.ready || !this.subscriptions.has(evt)) return false;
    this.post(Opcode.FRAME, { cmd: 'DISPATCH', evt, nonce: null, data });
    return true;
  }

  close(code: number = CloseCode.CLOSE_NORMAL, message?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.post(Opcode.CLOSE, { code, ...(message ? { message } : {}) });
  }

  private post(opcode: number, payload: unknown): void {
    this.o.target.postMessage([opcode, payload], this.o.origin);
  }

  private handshake(payload: unknown): void {
    if (this.handshaken) return;
    const p = isObject(payload) ? payload : {};
    if (p.v !== 1) return this.refuse(CloseCode.INVALID_VERSION, 'Unsupported version');
    if (p.encoding !== undefined && p.encoding !== 'json') return this.refuse(CloseCode.INVALID_ENCODING, 'Unsupported encoding');
    if (p.client_id !== this.o.applicationId) return this.refuse(CloseCode.INVALID_CLIENTID, 'Invalid client ID');
    if (p.frame_id !== this.o.frameId) return this.refuse(CloseCode.INVALID_ORIGIN, 'Invalid frame ID');
    this.handshaken = true;
    this.post(Opcode.FRAME, { cmd: 'DISPATCH', evt: 'READY', nonce: null, data: this.o.ready() });
  }

  private refuse(code: number, message: string): void {
    this.close(code, message);
    this.o.onClose?.(code, message);
  }

  private async frame(payload: unknown): Promise<void> {
    if (!isObject(payload) || typeof payload.cmd !== 'string' || typeof payload.nonce !== 'string' || payload.nonce.length > 64 || payload.cmd.length > 64) return;
    const { cmd, nonce } = payload;
    const error = (code: number, message: string) => this.post(Opcode.FRAME, { cmd, evt: 'ERROR', nonce, data: { code, message } });
    let size = 0;
    try {
      size = JSON.stringify(payload).length;
    } catch {
      return error(RpcError.INVALID_PAYLOAD, 'The payload cannot be read');
    }
    if (size > MAX_FRAME_CHARS) return error(RpcError.INVALID_PAYLOAD, `The payload is larger than ${MAX_FRAME_CHARS} characters`);
    const args = payload.args === undefined || payload.args === null ? {} : payload.args;
    if (!isObject(args)) return error(RpcError.INVALID_PAYLOAD, 'args must be an object');
    if (cmd === 'SUBSCRIBE' || cmd === 'UNSUBSCRIBE') {
      const evt = payload.evt;
      if (typeof evt !== 'string' || !HOST_EVENTS.has(evt)) return error(RpcError.INVALID_EVENT, `Invalid event: ${String(evt).slice(0, 64)}`);
      if (cmd === 'SUBSCRIBE') this.subscriptions.add(evt);
      else this.subscriptions.delete(evt);
      this.post(Opcode.FRAME, { cmd, evt: null, nonce, data: { evt } });
      if (cmd === 'SUBSCRIBE') this.o.onSubscribe?.(evt, args);
      return;
    }
    const handler = Object.prototype.hasOwnProperty.call(this.o.handlers, cmd) ? this.o.handlers[cmd] : undefined;
    if (!handler) return error(RpcError.INVALID_COMMAND, `Invalid command: ${cmd}`);
    try {
      const data = await handler(args, cmd);
      if (!this.closed) this.post(Opcode.FRAME, { cmd, evt: null, nonce, data: data ?? null });
    } catch (e) {
      if (this.closed) return;
      if (e instanceof HostError) error(e.code, e.message);
      else error(RpcError.UNKNOWN_ERROR, 'The host could not complete the command');
    }
  }
}

/** Argument checks the commands share: a string of at most `max` characters, or undefined when absent and optional. */
export function stringArg(args: Record<string, unknown>, name: string, max: number, required = true): string | undefined {
  const v = args[name];
  if (v === undefined || v === null) {
    if (required) throw new HostError(RpcError.INVALID_PAYLOAD, `${name} is required`);
    return undefined;
  }
  if (typeof v !== 'string' || v.length > max) throw new HostError(RpcError.INVALID_PAYLOAD, `${name} must be a string of at most ${max} characters`);
  return v;
}
