import WebSocket from 'ws';

/**
 * The activity proxy's WebSocket relay (issue 17) with bounded buffers both ways. A peer that reads
 * slower than the other writes must not make the proxy hold everything in memory: when the socket
 * being written to has more than `highWater` bytes queued, the relay stops reading from the other
 * side (ws `pause()`: TCP flow control then slows the writer itself) and reads again once the queue
 * is under `lowWater`. A peer that does not drain for `stallMs` is dropped: it is terminated (a close
 * frame would only queue behind what it will not read) and the other side is closed with 1013 (Try
 * Again Later). Mutable so an in-process test can shorten the stall.
 */
export const RELAY_LIMITS = { highWater: 4 * 1024 * 1024, lowWater: 1024 * 1024, stallMs: 30_000 };

/** Close codes that may be sent on the wire (1005, 1006 and 1015 are only ever reported). */
function sendableCode(code: number): number | undefined {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999) ? code : undefined;
}

export function relay(client: WebSocket, upstream: WebSocket): void {
  const pipe = (from: WebSocket, to: WebSocket) => {
    let paused = false;
    let stall: ReturnType<typeof setTimeout> | undefined;
    const resumeIfDrained = () => {
      if (!paused || to.bufferedAmount > RELAY_LIMITS.lowWater) return;
      paused = false;
      clearTimeout(stall);
      if (from.readyState === WebSocket.OPEN) from.resume();
    };
    from.on('message', (data, isBinary) => {
      if (to.readyState !== WebSocket.OPEN) return;
      // The callback runs once this message has been handed to the socket: the queue shrank.
      to.send(data, { binary: isBinary }, () => resumeIfDrained());
      if (!paused && to.bufferedAmount > RELAY_LIMITS.highWater) {
        paused = true;
        from.pause();
        stall = setTimeout(() => {
          if (!paused) return;
          to.terminate();
          if (from.readyState === WebSocket.OPEN) from.close(1013, 'peer not reading');
        }, RELAY_LIMITS.stallMs);
        stall.unref?.();
      }
    });
    from.on('close', (code, reason) => {
      clearTimeout(stall);
      if (to.readyState === WebSocket.OPEN || to.readyState === WebSocket.CONNECTING) {
        const c = sendableCode(code);
        if (c === undefined) to.close();
        else to.close(c, reason);
      }
    });
    from.on('error', () => to.terminate());
    to.on('close', () => clearTimeout(stall));
  };
  pipe(client, upstream);
  pipe(upstream, client);
}
