/**
 * Frames for one socket within one event-loop turn leave in one write.
 *
 * In a burst, a socket gets several dispatches in quick succession. When 25 players join a
 * lobby at once, every member gets a LOBBY_MEMBER_ADD per joiner, and the server handles all the
 * requests that arrived together in the same poll phase. Each frame cost a writev system call
 * here.
 *
 * The first frame a socket gets in a turn is written at once, so a single fan-out (one lobby
 * message to 100 sockets) writes each socket when it did before. A second frame in the same turn
 * corks the socket. The socket is uncorked in `setImmediate`, after the poll phase's I/O
 * callbacks, so the second frame and any later ones leave together. The writes themselves are
 * unchanged: `ws` corks its own header and payload writes, and a nested cork is counted.
 */
import type { Duplex } from 'node:stream';

/** Bumped when a turn's corked sockets are flushed; a socket's last turn says whether a frame already left in this one. */
let turn = 0;
let flushScheduled = false;
const corked: Duplex[] = [];

function endTurn(): void {
  flushScheduled = false;
  turn++;
  // A socket destroyed meanwhile ignores the uncork.
  for (const socket of corked.splice(0)) socket.uncork();
}

/** A connection's record of its socket's turns (two fields on the connection, not an object per socket). */
export interface WriteTurns {
  /** The turn in which a frame last went to the socket. */
  lastTurn: number;
  /** The turn in which the socket was last corked. */
  corkedTurn: number;
}

/** Call just before writing a frame to `socket`: corks it when a frame already left in this turn. */
export function beforeWrite(turns: WriteTurns, socket: Duplex): void {
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(endTurn);
  }
  if (turns.lastTurn !== turn) turns.lastTurn = turn;
  else if (turns.corkedTurn !== turn) {
    turns.corkedTurn = turn;
    socket.cork();
    corked.push(socket);
  }
}

/**
 * Flushes now what this turn corked on `socket` (a connection closing: its last frames and the
 * close frame leave before anything can destroy the socket). The end of the turn's uncork is then
 * a no-op: a stream that is not corked ignores `uncork`.
 */
export function flushNow(turns: WriteTurns, socket: Duplex): void {
  if (turns.corkedTurn !== turn) return;
  turns.corkedTurn = -1;
  socket.uncork();
}
