import { resolveWebSocket, type WebSocketConstructor, type WebSocketLike } from '../../webSocket.ts';

/** WebSocket with binary frames: the browser's WebSocket and the `ws` package both fit. */
export interface VoiceSocketLike extends Omit<WebSocketLike, 'send'> {
  binaryType: string;
  send(data: string | ArrayBufferView | ArrayBuffer): void;
}

export type VoiceSocketConstructor = new (url: string) => VoiceSocketLike;

export async function resolveVoiceSocket(explicit?: WebSocketConstructor | VoiceSocketConstructor): Promise<VoiceSocketConstructor> {
  return (await resolveWebSocket(explicit as WebSocketConstructor | undefined)) as unknown as VoiceSocketConstructor;
}

/** Bytes of a binary message event (ArrayBuffer in browsers and with binaryType 'arraybuffer'). */
export function messageBytes(data: unknown): Uint8Array | undefined {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (Array.isArray(data)) return messageBytes(concatChunks(data as Uint8Array[]));
  return undefined;
}

function concatChunks(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
