/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * The part of the WebSocket API the client uses, shared by the browser's WebSocket and the `ws`
 * package. Handler parameters are `any` so both classes are assignable without casts.
 */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Called when the socket opens. */
  onopen: ((event: any) => void) | null;
  /** Called with each message. */
  onmessage: ((event: any) => void) | null;
  /** Called when the socket closes. */
  onclose: ((event: any) => void) | null;
  /** Called on an error (a close follows). */
  onerror: ((event: any) => void) | null;
  /** Sends a text frame. */
  send(data: string): void;
  /** Closes the socket with a close code and reason. */
  close(code?: number, reason?: string): void;
}

/** A WebSocket class (the global one in browsers, `ws` in Node). */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/**
 * Picks the WebSocket implementation: the caller's, else the platform's global (browsers, Node
 * 22+), else the `ws` package (Node 20 has no global WebSocket). The import is dynamic and its
 * specifier literal, so a browser bundle can mark `ws` external and never load it.
 */
export async function resolveWebSocket(explicit?: WebSocketConstructor): Promise<WebSocketConstructor> {
  if (explicit) return explicit;
  const global = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof global === 'function') return global as WebSocketConstructor;
  const mod: any = await import('ws');
  return (mod.WebSocket ?? mod.default) as WebSocketConstructor;
}

/** Text of a message event: strings from browsers and `ws`, bytes from anything stricter. */
export function messageText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  return String(data);
}

/** Drops the socket at once. `ws` can terminate; a browser socket can only start a close. */
export function dropSocket(socket: WebSocketLike, code: number, reason: string): void {
  socket.onopen = null;
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = () => {};
  const terminate = (socket as { terminate?: () => void }).terminate;
  try {
    if (typeof terminate === 'function') terminate.call(socket);
    else socket.close(code, reason);
  } catch {
    // Closing a socket that never opened throws in some implementations; it is gone either way.
  }
}
