// The Gateway session's Resume buffer, on its own: what a Resume sends is exactly what the socket
// was sent, in order, once, whether the frames were sent here or restored from another node.
import { describe, expect, it } from 'vitest';
import { Session } from '../src/gateway/Session.ts';

function session(maxBuffered = 5000) {
  /** What the socket was given, decoded; `bytes` as given. */
  const wire: string[] = [];
  const bytes: (string | Buffer)[] = [];
  const s = new Session('sid', 'u1', 'app', 'token', maxBuffered);
  s.attach((frame) => {
    bytes.push(frame);
    wire.push(frame.toString());
  });
  return { s, wire, bytes };
}

describe('Session Resume buffer', () => {
  it('a Resume after seq N gets the frames the socket got after N, byte for byte, and a heartbeat ack drops the older ones', () => {
    const { s, wire, bytes } = session();
    s.sendReady('{"v":10}');
    const payload = JSON.stringify({ content: 'hé 👋 "quoted"', lobby_id: '1' });
    for (let i = 0; i < 5; i++) s.dispatch({ t: 'LOBBY_MESSAGE_CREATE', json: payload });
    expect(wire).toHaveLength(6);
    expect(JSON.parse(wire[1]!)).toEqual({ op: 0, t: 'LOBBY_MESSAGE_CREATE', s: 2, d: JSON.parse(payload) });
    // The socket gets the frame's UTF-8 bytes (dispatchFrame.ts), the payload encoded once: the
    // same bytes a Resume's string frames encode to.
    const replay = s.framesAfter(1) as string[];
    expect(replay).toHaveLength(5);
    for (const [i, frame] of replay.entries()) expect(bytes[i + 1]).toEqual(Buffer.from(frame));
    expect(s.framesAfter(3)).toEqual(wire.slice(3));
    expect(s.framesAfter(6)).toEqual([]);
    s.acknowledge(4);
    expect(s.framesAfter(4)).toEqual(wire.slice(4));
    expect(s.framesAfter(3)).toBe('lost');
    expect(s.framesAfter(7)).toBe('invalid-seq');
  });

  it('READY is not kept: a Resume from seq 0 is lost, one from READY on gets everything after it', () => {
    const { s, wire } = session();
    s.sendReady('{"v":10,"session_id":"sid"}');
    expect(s.framesAfter(0)).toBe('lost');
    expect(s.framesAfter(1)).toEqual([]);
    s.dispatch({ t: 'PRESENCE_UPDATE', json: '{"status":"online"}' });
    expect(wire.map((f) => JSON.parse(f).s)).toEqual([1, 2]);
    expect(JSON.parse(wire[0]!).t).toBe('READY');
    expect(s.framesAfter(1)).toEqual([wire[1]]);
    expect(s.framesAfter(0)).toBe('lost');
  });

  it('a dispatch held while READY was built is stored with its user-stream entry, as every other one is', () => {
    const { s } = session();
    const stored: { s: number; u: string }[] = [];
    s.onFrame = (seq, _frame, u) => stored.push({ s: seq, u });
    // Identify's own connect announcement (LOBBY_MEMBER_UPDATE connected) arrives before READY is sent.
    s.dispatch({ t: 'LOBBY_MEMBER_UPDATE', json: '{"lobby_id":"1"}', id: '1700000000000-0' });
    s.sendReady('{"v":10}');
    s.dispatch({ t: 'LOBBY_MESSAGE_CREATE', json: '{"content":"after"}', id: '1700000000001-0' });
    // Without the entry, a Resume on another node took the held one for a dispatch the session never got, and sent it again.
    expect(stored).toEqual([
      { s: 1, u: '' },
      { s: 2, u: '1700000000000-0' },
      { s: 3, u: '1700000000001-0' },
    ]);
  });

  it('frames restored from another node come back as they were, followed by what this node sent', () => {
    const { s, wire } = session();
    const restored = [
      { s: 1, frame: '{"op":0,"t":"READY","s":1,"d":{"v":10}}' },
      { s: 2, frame: '{"op":0,"t":"LOBBY_UPDATE","s":2,"d":{"id":"9"}}' },
    ];
    s.restore(restored, [{ t: 'LOBBY_MESSAGE_CREATE', json: '{"content":"missed"}', id: '1-0' }], new Set());
    s.dispatch({ t: 'LOBBY_MESSAGE_CREATE', json: '{"content":"live"}' });
    expect(wire.map((f) => JSON.parse(f).s)).toEqual([3, 4]);
    expect(s.framesAfter(0)).toEqual([...restored.map((f) => f.frame), ...wire]);
    expect(s.framesAfter(2)).toEqual(wire);
  });

  it('keeps at most maxBuffered frames: a Resume from before them is lost', () => {
    const { s, wire } = session(3);
    s.sendReady('{}');
    for (let i = 0; i < 5; i++) s.dispatch({ t: 'X', json: String(i) });
    expect(s.framesAfter(3)).toEqual(wire.slice(3));
    expect(s.framesAfter(2)).toBe('lost');
  });
});
