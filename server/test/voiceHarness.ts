import dgram from 'node:dgram';
import { PeerConnection, type DataChannel } from 'node-datachannel';
import WebSocket from 'ws';
import { CoreCryptoBackend, type TransportCipher } from '@social-layer/core-wasm';
import { RawGateway, type TestServer } from './harness.ts';

/**
 * A voice participant driven at the wire level: main Gateway op 4, the voice gateway, and a
 * media transport, with real transport crypto from core-wasm. For protocol tests of the server.
 */
export class RawVoiceClient {
  readonly voiceFrames: any[] = [];
  readonly binaryFrames: { seq: number; op: number; body: Buffer }[] = [];
  readonly received: { ssrc: number; nonce: number; frame: Buffer; raw: Buffer }[] = [];
  voiceClose: number | null = null;
  ssrc = 0;
  key: Uint8Array | null = null;
  mediaSession = '';
  private cipher: TransportCipher | null = null;
  private sendNonce = 0;
  private seq = 100;
  private waiters: (() => void)[] = [];
  media: WebSocket | null = null;
  udp: dgram.Socket | null = null;
  voice!: WebSocket;
  sessionId = '';
  voiceToken = '';
  endpoint = '';

  private constructor(
    readonly t: TestServer,
    readonly gateway: RawGateway,
    readonly userId: string,
    readonly lobbyId: string,
    private readonly backend: CoreCryptoBackend,
  ) {}

  /** Identifies on the main Gateway and asks to join the lobby's call (op 4). */
  static async request(t: TestServer, token: string, lobbyId: string, flags = { self_mute: false, self_deaf: false }): Promise<RawVoiceClient> {
    const gateway = await RawGateway.open(t.server);
    const ready = await gateway.identify(token);
    const client = new RawVoiceClient(t, gateway, ready.user.id, lobbyId, await CoreCryptoBackend.create());
    client.sessionId = ready.session_id;
    gateway.send({ op: 4, d: { guild_id: null, channel_id: lobbyId, ...flags } });
    return client;
  }

  async awaitServerUpdate(): Promise<void> {
    const update = await this.gateway.next((f) => f.t === 'VOICE_SERVER_UPDATE');
    this.voiceToken = update.d.token;
    this.endpoint = update.d.endpoint;
  }

  /** Opens the voice gateway and sends Identify, without waiting for the answer. */
  async openVoice(identify: Record<string, unknown> = {}): Promise<void> {
    if (!this.voiceToken) await this.awaitServerUpdate();
    this.voice = new WebSocket(`ws://${this.endpoint}?v=8`);
    this.attachVoiceHandlers(this.voice);
    await new Promise((r) => this.voice.once('open', r));
    this.voice.send(JSON.stringify({ op: 0, d: { server_id: this.lobbyId, user_id: this.userId, session_id: this.sessionId, token: this.voiceToken, max_dave_protocol_version: 1, ...identify } }));
  }

  /** Opens the voice gateway and identifies; resolves at Ready. */
  async connectVoice(identify: Record<string, unknown> = {}): Promise<any> {
    this.voiceFrames.length = 0;
    await this.openVoice(identify);
    const ready = await this.nextVoice((f) => f.op === 2);
    this.ssrc = ready.d.ssrc;
    return ready.d;
  }

  attachVoiceHandlers(ws: WebSocket): void {
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) this.binaryFrames.push({ seq: data.readUInt16BE(0), op: data.readUInt8(2), body: data.subarray(3) });
      else this.voiceFrames.push(JSON.parse(data.toString()));
      this.wake();
    });
    ws.on('close', (code) => {
      if (ws === this.voice) this.voiceClose = code;
      this.wake();
    });
    ws.on('error', () => {});
  }

  async selectWebSocket(mode = 'aead_aes256_gcm_rtpsize'): Promise<void> {
    this.voice.send(JSON.stringify({ op: 1, d: { protocol: 'websocket', data: { address: '', port: 0, mode } } }));
    const desc = await this.nextVoice((f) => f.op === 4);
    this.useKey(desc.d.mode, desc.d.secret_key);
    this.mediaSession = desc.d.media_session;
    await this.openMedia();
  }

  async openMedia(): Promise<void> {
    this.media = new WebSocket(`ws://${this.endpoint}/media`);
    this.media.on('message', (data: Buffer) => this.onPacket(data));
    this.media.on('error', () => {});
    await new Promise((r) => this.media!.once('open', r));
    this.media.send(JSON.stringify({ media_session: this.mediaSession }));
    // The attach is processed before the next frame; give the server a tick.
    await new Promise((r) => setTimeout(r, 30));
  }

  async selectUdp(ready: { ip: string; port: number }, mode = 'aead_xchacha20_poly1305_rtpsize'): Promise<void> {
    this.udp = dgram.createSocket('udp4');
    await new Promise<void>((r) => this.udp!.bind(0, '127.0.0.1', () => r()));
    const discovered = new Promise<{ address: string; port: number }>((resolve) => {
      this.udp!.once('message', (msg) => resolve({ address: msg.subarray(8, msg.indexOf(0, 8)).toString('ascii'), port: msg.readUInt16BE(72) }));
    });
    const req = Buffer.alloc(74);
    req.writeUInt16BE(1, 0);
    req.writeUInt16BE(70, 2);
    req.writeUInt32BE(this.ssrc, 4);
    this.udp.send(req, ready.port, ready.ip);
    const me = await discovered;
    this.udp.on('message', (msg) => this.onPacket(msg));
    this.voice.send(JSON.stringify({ op: 1, d: { protocol: 'udp', data: { address: me.address, port: me.port, mode } } }));
    const desc = await this.nextVoice((f) => f.op === 4);
    this.useKey(desc.d.mode, desc.d.secret_key);
    this.udpTarget = ready;
  }
  private udpTarget: { ip: string; port: number } | null = null;

  /** The webrtc transport as a browser would use it: offer one unordered data channel `media`. */
  async selectWebRtc(mode = 'aead_aes256_gcm_rtpsize'): Promise<void> {
    const pc = new PeerConnection('test-client', { iceServers: [] });
    this.peer = pc;
    const channel = pc.createDataChannel('media', { unordered: true, maxRetransmits: 0 });
    const opened = new Promise<void>((r) => channel.onOpen(() => r()));
    channel.onMessage((msg) => {
      if (typeof msg !== 'string') this.onPacket(Buffer.from(msg as Buffer));
    });
    await new Promise<void>((resolve) => {
      if (pc.gatheringState() === 'complete') return resolve();
      pc.onGatheringStateChange((state) => state === 'complete' && resolve());
    });
    const offer = pc.localDescription()!.sdp;
    this.voice.send(JSON.stringify({ op: 1, d: { protocol: 'webrtc', data: { address: '', port: 0, mode, sdp: offer } } }));
    const desc = await this.nextVoice((f) => f.op === 4);
    this.useKey(desc.d.mode, desc.d.secret_key);
    pc.setRemoteDescription(desc.d.sdp, 'answer');
    await opened;
    this.channel = channel;
  }
  peer: PeerConnection | null = null;
  channel: DataChannel | null = null;

  speaking(flags = 1): void {
    this.voice.send(JSON.stringify({ op: 5, d: { speaking: flags, delay: 0, ssrc: this.ssrc } }));
  }

  /** Builds and seals one RTP packet carrying `frame`; returns the wire bytes (also sent unless told not to). */
  sendFrame(frame: Uint8Array, opts: { send?: boolean; ssrc?: number; nonce?: number } = {}): Buffer {
    const buf = new Uint8Array(12 + frame.length + 20);
    buf[0] = 0x80;
    buf[1] = 0x78;
    const seq = this.seq++ & 0xffff;
    buf[2] = seq >> 8;
    buf[3] = seq & 0xff;
    new DataView(buf.buffer).setUint32(4, seq * 960);
    new DataView(buf.buffer).setUint32(8, opts.ssrc ?? this.ssrc);
    buf.set(frame, 12);
    const n = this.cipher!.seal(buf, 12 + frame.length, opts.nonce ?? ++this.sendNonce);
    const packet = Buffer.from(buf.subarray(0, n));
    if (opts.send !== false) this.sendRaw(packet);
    return packet;
  }

  sendRaw(packet: Buffer): void {
    if (this.channel) this.channel.sendMessageBinary(packet);
    else if (this.udp && this.udpTarget) this.udp.send(packet, this.udpTarget.port, this.udpTarget.ip);
    else this.media!.send(packet);
  }

  sendVoice(payload: unknown): void {
    this.voice.send(typeof payload === 'string' ? payload : JSON.stringify(payload));
  }

  async nextVoice(pred: (f: any) => boolean, timeoutMs = 5000): Promise<any> {
    return this.waitFor(() => this.voiceFrames.find(pred), timeoutMs, 'voice frame');
  }

  async nextPacket(pred: (p: { frame: Buffer }) => boolean = () => true, timeoutMs = 5000): Promise<{ ssrc: number; nonce: number; frame: Buffer; raw: Buffer }> {
    return this.waitFor(() => this.received.find(pred), timeoutMs, 'media packet');
  }

  async voiceClosed(timeoutMs = 5000): Promise<number> {
    return this.waitFor(() => this.voiceClose ?? undefined, timeoutMs, 'voice close');
  }

  close(): void {
    this.voice?.terminate();
    this.media?.terminate();
    this.udp?.close();
    this.channel?.close();
    this.peer?.close();
    this.gateway.ws.close(1000);
  }

  private useKey(mode: string, secret: number[]): void {
    this.key = new Uint8Array(secret);
    this.cipher = this.backend.createTransportCipher(mode as 'aead_aes256_gcm_rtpsize', this.key);
  }

  private onPacket(data: Buffer): void {
    if (!this.cipher || data.length < 32) return;
    const buf = new Uint8Array(data.length);
    buf.set(data);
    const n = this.cipher.open(buf, data.length);
    if (n < 0) return;
    this.received.push({ ssrc: data.readUInt32BE(8), nonce: data.readUInt32BE(data.length - 4), frame: Buffer.from(buf.subarray(this.cipher.frameOffset, this.cipher.frameOffset + n)), raw: data });
    this.wake();
  }

  private async waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = probe();
      if (v !== undefined) return v;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
