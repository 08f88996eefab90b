import { VoiceTransport } from '@social-layer/protocol';
import { dropSocket } from '../../webSocket.ts';
import { messageBytes, type VoiceSocketConstructor, type VoiceSocketLike } from './voiceSocket.ts';
import { withTimeout, type MediaTransport, type MediaTransportEvents, type SelectProtocolData, type SessionDescription } from './MediaTransport.ts';

const OPEN_TIMEOUT_MS = 5000;

/**
 * RTP over a second WebSocket at `<endpoint>/media` (contracts-voice.md 2): one text frame
 * `{"media_session"}`, then each binary frame is one transport-encrypted packet. Works
 * everywhere; a cut socket is reopened with the same media_session.
 */
export class WebSocketMediaTransport implements MediaTransport {
  readonly kind = VoiceTransport.WebSocket;
  private socket: VoiceSocketLike | undefined;
  private mediaSession: string | undefined;
  private closed = false;

  constructor(
    private readonly Ctor: VoiceSocketConstructor,
    /** `ws://host:port/voice/media` */
    private readonly url: string,
    private readonly events: MediaTransportEvents,
  ) {}

  get open(): boolean {
    return this.socket?.readyState === 1;
  }

  async prepare(): Promise<SelectProtocolData> {
    return { address: '', port: 0 };
  }

  async start(description: SessionDescription): Promise<void> {
    if (!description.media_session) throw new Error('Session Description has no media_session');
    this.mediaSession = description.media_session;
    await this.connect();
  }

  async reopen(): Promise<void> {
    if (!this.mediaSession) throw new Error('no media session to reopen');
    await this.connect();
  }

  private connect(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    this.drop();
    const socket = new this.Ctor(this.url);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    const opened = new Promise<void>((resolve, reject) => {
      socket.onopen = () => {
        socket.send(JSON.stringify({ media_session: this.mediaSession }));
        resolve();
      };
      socket.onerror = () => {};
      socket.onclose = (event: { code?: number }) => {
        reject(new Error(`media socket closed with ${event.code ?? 1006}`));
        if (this.socket === socket && !this.closed) {
          this.socket = undefined;
          this.events.closed(`media socket closed with ${event.code ?? 1006}`);
        }
      };
    });
    socket.onmessage = (event: { data: unknown }) => {
      if (this.socket !== socket) return;
      const bytes = messageBytes(event.data);
      if (bytes) this.events.packet(bytes);
    };
    return withTimeout(opened, OPEN_TIMEOUT_MS, 'media socket').catch((error: unknown) => {
      if (this.socket === socket) {
        this.socket = undefined;
        dropSocket(socket as never, 4000, 'open failed');
      }
      throw error;
    });
  }

  send(packet: Uint8Array): void {
    const socket = this.socket;
    // Browser sockets copy on send; `ws` may queue the view, so it gets a copy.
    if (socket && socket.readyState === 1) socket.send(packet.slice());
  }

  private drop(): void {
    const socket = this.socket;
    this.socket = undefined;
    if (socket) dropSocket(socket as never, 1000, 'replaced');
  }

  /** Test hook: cuts the socket as a network failure would (reported through `closed`). */
  cut(): void {
    const socket = this.socket;
    if (!socket) return;
    const terminate = (socket as { terminate?: () => void }).terminate;
    if (typeof terminate === 'function') terminate.call(socket);
    else socket.close(4000, 'cut');
  }

  close(): void {
    this.closed = true;
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.onclose = null;
      try {
        socket.close(1000, 'call ended');
      } catch {
        dropSocket(socket as never, 1000, '');
      }
    }
  }
}
