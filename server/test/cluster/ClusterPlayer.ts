// One player of the cluster test: the real client SDK in Node, with a WebSocket class underneath
// that records every Gateway frame it receives and when each socket opened and closed, so the
// test can check delivery at the wire (the SDK's own message cache would hide a duplicate).
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { AuthenticationExternalAuthType, AuthorizationTokenType, Client, type WebSocketConstructor, type WebSocketLike } from '@social-layer/client';

export interface Frame {
  at: number;
  op: number;
  t: string | null;
  s: number | null;
  d: any;
  /** Which of this player's Gateway sockets carried it (0, 1, ...). */
  socket: number;
}

export interface SocketLife {
  url: string;
  openedAt: number | null;
  closedAt: number | null;
  /** Refused by the test (`awayUntil`): never reached the network. */
  held?: boolean;
}

export class ClusterPlayer {
  readonly frames: Frame[] = [];
  readonly sockets: SocketLife[] = [];
  /** Ops this player sent, with when (diagnostics when a session does not come back). */
  readonly sent: { at: number; op: number; socket: number }[] = [];
  client!: Client;
  userId = '';
  /** Numbers this player tried to send, and those the server acknowledged, per conversation. */
  readonly attempted = new Set<number>();
  readonly acked = new Set<number>();
  /**
   * Until this time (ms since the epoch) every new Gateway socket fails at once, as if the
   * balancer refused it: the client backs off and tries again. The test keeps some players away
   * past the dead node's lapse this way, whatever the reconnect jitter drew.
   */
  awayUntil = 0;

  constructor(readonly name: string) {}

  /** A WebSocket class for the Gateway that records frames and socket lifetimes. */
  private socketClass(): WebSocketConstructor {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const player = this;
    return class RecordingSocket implements WebSocketLike {
      private readonly ws: WebSocket | undefined;
      onopen: ((event: any) => void) | null = null;
      onmessage: ((event: any) => void) | null = null;
      onclose: ((event: any) => void) | null = null;
      onerror: ((event: any) => void) | null = null;
      private readonly index: number;
      constructor(readonly url: string) {
        const life: SocketLife = { url, openedAt: null, closedAt: null };
        const index = player.sockets.push(life) - 1;
        this.index = index;
        if (Date.now() < player.awayUntil) {
          life.held = true;
          setTimeout(() => {
            life.closedAt = Date.now();
            this.onerror?.({ type: 'error', message: 'held away by the test' });
            this.onclose?.({ type: 'close', code: 1006, reason: '', wasClean: false });
          }, 0);
          return;
        }
        this.ws = new WebSocket(url);
        this.ws.onopen = (event) => {
          life.openedAt = Date.now();
          this.onopen?.(event);
        };
        this.ws.onerror = (event) => this.onerror?.(event);
        this.ws.onclose = (event) => {
          life.closedAt = Date.now();
          this.onclose?.(event);
        };
        this.ws.onmessage = (event) => {
          if (typeof event.data === 'string') {
            const f = JSON.parse(event.data);
            player.frames.push({ at: Date.now(), op: f.op, t: f.t ?? null, s: f.s ?? null, d: f.d, socket: index });
          }
          this.onmessage?.(event);
        };
      }
      get readyState(): number {
        return this.ws?.readyState ?? WebSocket.CLOSED;
      }
      send(data: string): void {
        player.sent.push({ at: Date.now(), op: JSON.parse(data).op, socket: this.index });
        this.ws?.send(data);
      }
      close(code?: number, reason?: string): void {
        this.ws?.close(code, reason);
      }
    } as unknown as WebSocketConstructor;
  }

  /**
   * Signs in as a new provisional account through the load balancer and connects the Gateway.
   * `reconnectBaseDelayMs` is the client's own reconnect backoff (see the test for why it is long).
   */
  async connect(apiBase: string, applicationId: string, reconnectBaseDelayMs: number): Promise<void> {
    this.client = new Client({
      apiBase,
      webSocket: this.socketClass(),
      reconnectBaseDelayMs,
      reconnectMaxDelayMs: reconnectBaseDelayMs,
      // A call that moves to another node joins it afresh: on a loaded 2-core machine that can
      // take longer than the SDK's default 10 s join timeout.
      voice: { webSocket: WebSocket as never, reconnectBaseDelayMs: 200, joinTimeoutMs: 30_000 },
    });
    const token = await this.client.getProvisionalToken(applicationId, AuthenticationExternalAuthType.DeviceId, randomBytes(16).toString('hex'));
    await this.client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
    await this.client.connect();
    this.userId = this.client.getCurrentUserV2()!.id;
  }

  /** Dispatch frames of one event name. */
  dispatches(t: string): Frame[] {
    return this.frames.filter((f) => f.op === 0 && f.t === t);
  }

  /** The current socket is open and its session got READY or RESUMED after `since`. */
  backSince(since: number): number | null {
    const f = this.frames.find((x) => x.at > since && x.op === 0 && (x.t === 'READY' || x.t === 'RESUMED'));
    return f ? f.at : null;
  }
}
