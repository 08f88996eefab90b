/**
 * A dispatch's wire frame, `{"op":0,"t":T,"s":S,"d":D}`, for one session: every recipient of a
 * fan-out gets its own sequence number, so each needs its own frame.
 *
 * As a string (a Resume's replay, the cluster's stored copy) it is a concatenation, the payload
 * serialized once for all. For the socket it is bytes: written as a string, each frame was
 * flattened and UTF-8-encoded again, payload and all, once per recipient. Here the payload is
 * encoded once per dispatch and each frame is a copy of it between a cached head and the
 * sequence number's digits. The `fanout-loop` bench measures the difference (tools/README.md,
 * "Thirteenth session").
 */
export function dispatchFrame(t: string, s: number, json: string): string {
  return `{"op":0,"t":${JSON.stringify(t)},"s":${s},"d":${json}}`;
}

/** `{"op":0,"t":T,"s":` per event name, as bytes. Event names are the protocol's, a few dozen. */
const heads = new Map<string, Buffer>();
const MAX_HEADS = 512;
const PAYLOAD_KEY = Buffer.from(',"d":');
const CLOSE = 0x7d; // '}'

/**
 * The payload last framed, and its bytes: a fan-out frames one dispatch for each of its sessions
 * in turn, and they share its payload string (comparing the same string object is one pointer
 * comparison).
 */
let lastJson = '';
let lastPayload: Buffer = Buffer.alloc(0);

function headOf(t: string): Buffer {
  let head = heads.get(t);
  if (!head) {
    head = Buffer.from(`{"op":0,"t":${JSON.stringify(t)},"s":`);
    if (heads.size < MAX_HEADS) heads.set(t, head);
  }
  return head;
}

/** The same frame as dispatchFrame, as the UTF-8 bytes a text WebSocket message carries. */
export function dispatchFrameBytes(t: string, s: number, json: string): Buffer {
  if (json !== lastJson) {
    lastJson = json;
    lastPayload = Buffer.from(json);
  }
  const head = headOf(t);
  const digits = String(s); // ASCII: one byte per character
  const frame = Buffer.allocUnsafe(head.length + digits.length + PAYLOAD_KEY.length + lastPayload.length + 1);
  let at = head.copy(frame, 0);
  at += frame.write(digits, at, 'latin1');
  at += PAYLOAD_KEY.copy(frame, at);
  at += lastPayload.copy(frame, at);
  frame[at] = CLOSE;
  return frame;
}
