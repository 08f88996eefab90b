import { VoiceTransport } from '@social-layer/protocol';
import { withTimeout, type MediaTransport, type MediaTransportEvents, type SelectProtocolData, type SessionDescription } from './MediaTransport.ts';

/**
 * Most bytes the media channel may hold unsent before a packet is dropped: about a second of our
 * own audio. A no-retransmit channel still queues what the congestion window holds back, and
 * audio sent late is worse than audio lost.
 */
const MAX_BUFFERED_BYTES = 16 * 1024;

export function webRtcAvailable(): boolean {
  return typeof (globalThis as { RTCPeerConnection?: unknown }).RTCPeerConnection === 'function';
}

/**
 * RTP over one unordered, no-retransmit WebRTC data channel named `media` (browsers; UDP-like
 * delivery through NATs). The offer goes in Select Protocol's `data.sdp`, the answer comes in
 * Session Description's `sdp`. A failed peer connection cannot be reopened in place: the call
 * reconnects with a new one.
 */
export class WebRtcMediaTransport implements MediaTransport {
  readonly kind = VoiceTransport.WebRtc;
  private pc: RTCPeerConnection | undefined;
  private channel: RTCDataChannel | undefined;
  private closed = false;

  constructor(private readonly events: MediaTransportEvents) {}

  get open(): boolean {
    return this.channel?.readyState === 'open';
  }

  async prepare(): Promise<SelectProtocolData> {
    const pc = new RTCPeerConnection({ iceServers: [] });
    this.pc = pc;
    const channel = pc.createDataChannel('media', { ordered: false, maxRetransmits: 0 });
    channel.binaryType = 'arraybuffer';
    this.channel = channel;
    channel.onmessage = (event: MessageEvent) => {
      if (event.data instanceof ArrayBuffer) this.events.packet(new Uint8Array(event.data));
    };
    channel.onclose = () => this.lost('data channel closed');
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === 'failed' || pc.connectionState === 'closed') this.lost(`peer connection ${pc.connectionState}`);
    };
    await pc.setLocalDescription(await pc.createOffer());
    await withTimeout(
      new Promise<void>((resolve) => {
        if (pc.iceGatheringState === 'complete') return resolve();
        pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
      }),
      2000,
      'ICE gathering',
    ).catch(() => undefined);
    return { address: '', port: 0, sdp: pc.localDescription?.sdp ?? '' };
  }

  async start(description: SessionDescription): Promise<void> {
    const pc = this.pc;
    const channel = this.channel;
    if (!pc || !channel || !description.sdp) throw new Error('Session Description has no SDP answer');
    await pc.setRemoteDescription({ type: 'answer', sdp: description.sdp });
    if (channel.readyState === 'open') return;
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        channel.addEventListener('open', () => resolve());
        channel.addEventListener('error', () => reject(new Error('data channel error')));
      }),
      5000,
      'data channel',
    );
  }

  async reopen(): Promise<void> {
    if (!this.open) throw new Error('a WebRTC transport cannot reopen; it needs new signalling');
  }

  send(packet: Uint8Array): void {
    const channel = this.channel;
    if (channel?.readyState === 'open' && channel.bufferedAmount <= MAX_BUFFERED_BYTES) channel.send(packet.slice());
  }

  private lost(reason: string): void {
    if (this.closed) return;
    this.close();
    this.events.closed(reason);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.channel?.close();
    this.pc?.close();
  }
}
