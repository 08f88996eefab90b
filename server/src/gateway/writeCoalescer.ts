/**
 * Frames for one socket within one event-loop turn leave in one write; roster frames in a burst
 * wait a little to leave together.
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
 *
 * Joins often arrive one per turn, though: in the `lobby-join` bench the server's 56,500 frames
 * still took 35,500-38,600 writes with the turn alone. A frame that may wait
 * (`mayWait`: a lobby roster change, which a client shows in a list and nobody races against)
 * is held when its socket was written to less than `HOLD_MS` ago, and leaves with the frames
 * that come after it in that window, at most `HOLD_MS` later. A frame on a quiet socket is
 * written at once, so a single roster change is as quick as before. A frame that may not wait
 * (anything else) releases what its socket holds with it, at the end of its turn, so the order
 * on the wire is the order of dispatch, always. With the hold the same run took 15,300-16,200
 * writes (tools/README.md, "Eleventh session").
 */
import type { Duplex } from 'node:stream';

/** How long a roster frame may wait for the ones after it: one frame of a 60 Hz display. */
export const HOLD_MS = 16;

/** Bumped when a turn's corked sockets are flushed; a socket's last turn says whether a frame already left in this one. */
let turn = 0;
let flushScheduled = false;
/** Date.now() when the turn's first frame was written: read once per turn, not once per frame of a fan-out. */
let turnStartedAt = 0;
const corked: Duplex[] = [];

/** Sockets holding roster frames, released together when the hold runs out. */
let held: { turns: WriteTurns; socket: Duplex }[] = [];
let holdTimer: NodeJS.Timeout | null = null;

function endTurn(): void {
  flushScheduled = false;
  turn++;
  // A socket destroyed meanwhile ignores the uncork.
  for (const socket of corked.splice(0)) socket.uncork();
}

function endHold(): void {
  holdTimer = null;
  const now = Date.now();
  const release = held;
  held = [];
  for (const h of release) {
    // Released meanwhile by a frame that could not wait, or by a close.
    if (!h.turns.holding) continue;
    h.turns.holding = false;
    h.turns.lastWriteAt = now;
    h.socket.uncork();
  }
}

/** A connection's record of its socket's writes (fields on the connection, not an object per socket). */
export interface WriteTurns {
  /** The turn in which a frame last went to the socket. */
  lastTurn: number;
  /** The turn in which the socket was last corked. */
  corkedTurn: number;
  /** When a frame last left for the socket (Date.now() of its turn), for the roster hold. */
  lastWriteAt: number;
  /** The socket is corked by the roster hold. */
  holding: boolean;
}

function scheduleTurnEnd(): void {
  if (!flushScheduled) {
    flushScheduled = true;
    turnStartedAt = Date.now();
    setImmediate(endTurn);
  }
}

/**
 * Call just before writing a frame to `socket`: corks it when a frame already left in this turn,
 * or, for a frame that `mayWait`, when one left less than HOLD_MS ago.
 */
export function beforeWrite(turns: WriteTurns, socket: Duplex, mayWait = false): void {
  scheduleTurnEnd();
  if (turns.holding) {
    if (mayWait) return;
    // This frame cannot wait: the held ones leave with it at the end of the turn. The hold's cork
    // becomes the turn's (one cork, one uncork), and endHold skips the socket.
    turns.holding = false;
    if (turns.corkedTurn !== turn) {
      turns.corkedTurn = turn;
      corked.push(socket);
    } else socket.uncork();
    turns.lastTurn = turn;
    turns.lastWriteAt = turnStartedAt;
    return;
  }
  if (turns.lastTurn !== turn) {
    if (mayWait && turnStartedAt - turns.lastWriteAt < HOLD_MS) {
      turns.holding = true;
      socket.cork();
      held.push({ turns, socket });
      holdTimer ??= setTimeout(endHold, HOLD_MS);
      return;
    }
    turns.lastTurn = turn;
    turns.lastWriteAt = turnStartedAt;
  } else if (turns.corkedTurn !== turn) {
    turns.corkedTurn = turn;
    socket.cork();
    corked.push(socket);
  }
}

/**
 * Flushes now what this turn corked or the hold keeps on `socket` (a connection closing: its last
 * frames and the close frame leave before anything can destroy the socket). The later uncorks
 * are then no-ops: a stream that is not corked ignores `uncork`, and endHold skips the socket.
 */
export function flushNow(turns: WriteTurns, socket: Duplex): void {
  if (turns.holding) {
    turns.holding = false;
    socket.uncork();
  }
  if (turns.corkedTurn !== turn) return;
  turns.corkedTurn = -1;
  socket.uncork();
}
