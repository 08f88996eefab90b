// The relay's send path to a WebRTC participant: a backed-up data channel drops packets instead of
// queueing them, so a slow receiver hears the call late by at most the bound, not more and more.
import { describe, expect, it } from 'vitest';
import { dataChannelSink, MAX_MEDIA_BUFFERED_BYTES } from '../src/voice/WebRtcTransport.ts';

/** A channel whose unsent bytes grow with each send and drain when told, as SCTP's queue does. */
function channel() {
  const state = { open: true, buffered: 0, sent: [] as Buffer[] };
  return {
    state,
    isOpen: () => state.open,
    bufferedAmount: () => state.buffered,
    sendMessageBinary(buffer: Buffer) {
      state.sent.push(buffer);
      state.buffered += buffer.length;
      return true;
    },
  };
}

describe('dataChannelSink', () => {
  it('sends copies while the channel keeps up, drops and counts past the bound, and sends again once drained', () => {
    const ch = channel();
    let drops = 0;
    const sink = dataChannelSink(ch, () => drops++);
    const scratch = new Uint8Array(200).fill(7);
    const fits = Math.floor(MAX_MEDIA_BUFFERED_BYTES / scratch.length) + 1;
    for (let i = 0; i < fits + 50; i++) sink.send(scratch);
    expect(ch.state.sent).toHaveLength(fits);
    expect(drops).toBe(50);
    // A copy: the relay reuses its scratch for the next packet.
    scratch.fill(0);
    expect(ch.state.sent[0]![0]).toBe(7);
    ch.state.buffered = 0;
    sink.send(scratch);
    expect(ch.state.sent).toHaveLength(fits + 1);
    ch.state.open = false;
    sink.send(scratch);
    expect(ch.state.sent).toHaveLength(fits + 1);
    expect(drops).toBe(50);
  });
});
