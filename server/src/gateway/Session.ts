import { DispatchEvent } from '@social-layer/protocol';
import type { Dispatch } from '../events/EventBus.ts';
import { dispatchFrame, dispatchFrameBytes } from './dispatchFrame.ts';

/**
 * A dispatch sent and kept until the client acknowledges it: its parts, or (restored from another
 * node's store) its whole frame. The parts, not the frame, because the payload string is the one
 * every recipient of a fan-out shares: a lobby message to 100 members kept 100 copies of itself,
 * one per session, each surviving into the old generation until the next heartbeat; now each
 * session keeps a small record and the frame it wrote is young garbage (lobby-fanout's GC pauses).
 */
type Sent = { s: number; t: string; json: string } | { s: number; frame: string };

const frameOf = (f: Sent): string => ('frame' in f ? f.frame : dispatchFrame(f.t, f.s, f.json));

/**
 * Roster changes a client shows in a list: in a burst their frames may wait a moment for the ones
 * after them (writeCoalescer.ts). Anything else leaves at once and takes them along.
 */
const MAY_WAIT = new Set<string>([DispatchEvent.LobbyMemberAdd, DispatchEvent.LobbyMemberUpdate, DispatchEvent.LobbyMemberRemove]);

/**
 * One Gateway session: it outlives its socket for `resumeWindowMs`, numbering every dispatch and
 * keeping the unacknowledged ones, so a client that reconnects with Resume gets each missed
 * dispatch in order, exactly once.
 */
export class Session {
  seq = 0;
  private buffer: Sent[] = [];
  /** Writes a frame (a text message's bytes, or a string) to the socket. */
  private socketSend: ((frame: string | Buffer, mayWait: boolean) => void) | null = null;
  private expiry: NodeJS.Timeout | null = null;
  closed = false;
  /**
   * Shared sessions (Redis): each numbered frame is written out before it goes to the socket, with
   * the user-stream entry it came from (`u`), so another node can resume the session.
   */
  onFrame: ((s: number, frame: string, u: string) => void) | null = null;
  /** User-stream entries a taken-over session already has: their live copies are dropped. */
  private seen: Set<string> | null = null;

  constructor(
    readonly id: string,
    readonly userId: string,
    readonly applicationId: string,
    readonly token: string,
    private readonly maxBuffered: number,
  ) {}

  get attached(): boolean {
    return this.socketSend !== null;
  }

  attach(send: (frame: string | Buffer, mayWait: boolean) => void): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
    this.socketSend = send;
  }

  /** Detached and counting down to its end. */
  get waiting(): boolean {
    return this.expiry !== null;
  }

  /** The socket went away; the session waits for a Resume until `onExpire` runs. */
  detach(resumeWindowMs: number, onExpire: () => void): void {
    this.socketSend = null;
    if (this.closed) return;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = setTimeout(onExpire, resumeWindowMs);
  }

  /** Dispatches that arrived between subscribing and READY; they follow READY in order. */
  private early: Dispatch[] | null = [];

  dispatch(d: Dispatch): void {
    if (this.early) this.early.push(d);
    else if (d.id === undefined || !this.seen?.has(d.id)) this.send(d.t, d.json, d.id);
  }

  /**
   * A session taken over from another node: the frames it was sent there, in order, then the
   * dispatches it missed meanwhile; live dispatches held since subscribing follow, minus those
   * already among them.
   */
  restore(frames: readonly { s: number; frame: string }[], missed: readonly Required<Dispatch>[], seen: Set<string>): void {
    this.buffer = frames.map((f) => ({ s: f.s, frame: f.frame }));
    if (this.buffer.length > this.maxBuffered) this.buffer = this.buffer.slice(-this.maxBuffered);
    this.seq = frames.length > 0 ? frames[frames.length - 1]!.s : 0;
    this.seen = seen;
    for (const d of missed) this.send(d.t, d.json, d.id);
    const early = this.early ?? [];
    this.early = null;
    for (const d of early) this.dispatch(d);
  }

  /**
   * Sends READY first, then whatever was published while READY was being built. READY is
   * numbered (s = 1) but not kept for Resume: only a client that got READY knows the session_id
   * a Resume needs, so no Resume ever asks for it (one that claims seq 0 is told its frames are
   * lost and identifies again). Kept, each session held its READY payload until its first
   * heartbeat, up to 41 s: 450 bytes for a player with no guilds, far more for a bot's.
   * The held dispatches keep their user-stream entries (`u`), as every other frame does: stored
   * without, a Resume on another node did not count them as sent and sent them again (Identify's
   * own connect announcement to the user's lobbies arrives while READY is built).
   */
  sendReady(json: string): void {
    this.send('READY', json, undefined, false);
    const early = this.early ?? [];
    this.early = null;
    for (const d of early) this.send(d.t, d.json, d.id);
  }

  send(t: string, json: string, u?: string, keep = true): void {
    if (this.closed) return;
    const s = ++this.seq;
    // Stored before the socket write, in the same tick: a node killed after writing to the socket
    // has handed the store its copy too.
    this.onFrame?.(s, dispatchFrame(t, s, json), u ?? '');
    if (keep) {
      this.buffer.push({ s, t, json });
      // A client that stays away too long loses its oldest frames; its Resume then fails (see framesAfter).
      if (this.buffer.length > this.maxBuffered) this.buffer.shift();
    }
    this.socketSend?.(dispatchFrameBytes(t, s, json), MAY_WAIT.has(t));
  }

  /** Heartbeats carry the last sequence the client has: everything up to it can be dropped. */
  acknowledge(seq: number): void {
    let drop = 0;
    while (drop < this.buffer.length && this.buffer[drop]!.s <= seq) drop++;
    if (drop > 0) this.buffer = this.buffer.slice(drop);
  }

  /**
   * Frames after `seq` for a Resume, or 'invalid-seq' when the client claims more than was sent,
   * or 'lost' when some of the frames it needs were dropped.
   */
  framesAfter(seq: number): string[] | 'invalid-seq' | 'lost' {
    if (seq > this.seq || seq < 0) return 'invalid-seq';
    const first = this.buffer[0];
    const oldestKept = first ? first.s : this.seq + 1;
    if (seq + 1 < oldestKept) return 'lost';
    return this.buffer.filter((f) => f.s > seq).map(frameOf);
  }

  close(): void {
    this.closed = true;
    this.socketSend = null;
    this.onFrame = null;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
    this.buffer = [];
    this.seen = null;
  }
}
