// A dispatch's frame as the socket gets it (bytes, the payload encoded once per dispatch) is the
// string frame a Resume replays, encoded: whatever the event, the sequence number, the payload's
// characters, and in whatever order dispatches come.
import { describe, expect, it } from 'vitest';
import { dispatchFrame, dispatchFrameBytes } from '../src/gateway/dispatchFrame.ts';

describe('dispatch frames', () => {
  it('bytes and string agree for every event, sequence number and payload, fan-outs interleaved', () => {
    const payloads = [
      '{}',
      JSON.stringify({ content: 'hé 👋 "quoted" \\ back\nslash', lobby_id: '1' }),
      JSON.stringify({ content: '\u2028\u2029 𝄞 日本語', n: 1e21 }),
      JSON.stringify({ big: 'x'.repeat(70_000) }), // past the Buffer pool and ws's 16-bit length
    ];
    const events = ['READY', 'LOBBY_MESSAGE_CREATE', 'PRESENCE_UPDATE', 'CUSTOM_"ODD"_NAME'];
    for (const s of [1, 9, 10, 99_999, 2_147_483_648, Number.MAX_SAFE_INTEGER]) {
      for (const t of events) {
        for (const json of payloads) {
          expect(dispatchFrameBytes(t, s, json)).toEqual(Buffer.from(dispatchFrame(t, s, json)));
          // The same payload framed again (the next session of a fan-out), then another one.
          expect(dispatchFrameBytes(t, s + 1, json).toString()).toBe(dispatchFrame(t, s + 1, json));
        }
      }
    }
    // An equal payload in another string object, and back to an earlier one.
    const a = JSON.stringify({ v: 'same' });
    const b = ['{"v":', '"same"}'].join('');
    expect(dispatchFrameBytes('X', 1, a).toString()).toBe(dispatchFrame('X', 1, b));
    expect(dispatchFrameBytes('X', 2, b).toString()).toBe(dispatchFrame('X', 2, a));
    expect(dispatchFrameBytes('X', 3, payloads[1]!).toString()).toBe(dispatchFrame('X', 3, payloads[1]!));
    expect(JSON.parse(dispatchFrameBytes('LOBBY_MESSAGE_CREATE', 42, payloads[1]!).toString())).toEqual({ op: 0, t: 'LOBBY_MESSAGE_CREATE', s: 42, d: JSON.parse(payloads[1]!) });
  });
});
