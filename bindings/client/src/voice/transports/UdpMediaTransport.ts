import type * as Dgram from 'node:dgram';
import { VoiceTransport } from '@social-layer/protocol';
import { DISCOVERY_BYTES, discoveryRequest, parseDiscoveryResponse } from './ipDiscovery.ts';
import type { MediaTransport, MediaTransportEvents, SelectProtocolData, VoiceReady } from './MediaTransport.ts';

const DISCOVERY_TRIES = 8;
const DISCOVERY_RETRY_MS = 250;
const KEEPALIVE_MS = 5000;

/** node:dgram without an import statement, so browser bundles of the client stay clean. */
export function nodeDgram(): typeof Dgram | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown; versions?: { node?: string } } }).process;
  if (!proc?.versions?.node) return undefined;
  return proc.getBuiltinModule?.('node:dgram') as typeof Dgram | undefined;
}

/**
 * Plain UDP to the relay (Node): 74-byte IP discovery to the Ready address, then RTP packets
 * from the same socket, and an 8-byte keep-alive every 5 s (u32 LE counter, as discord.js).
 */
export class UdpMediaTransport implements MediaTransport {
  readonly kind = VoiceTransport.Udp;
  private readonly socket: Dgram.Socket;
  private remote: { address: string; port: number } | undefined;
  private discovery: ((packet: Uint8Array) => void) | undefined;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private keepAliveCounter = 0;
  private started = false;
  private closed = false;

  constructor(
    dgram: typeof Dgram,
    private readonly events: MediaTransportEvents,
  ) {
    this.socket = dgram.createSocket('udp4');
    this.socket.on('message', (msg: Buffer) => {
      const bytes = new Uint8Array(msg.buffer, msg.byteOffset, msg.length);
      if (msg.length === DISCOVERY_BYTES && msg[0] === 0 && msg[1] === 2) {
        this.discovery?.(bytes);
        return;
      }
      if (this.started) this.events.packet(bytes);
    });
    this.socket.on('error', (error: Error) => {
      if (this.closed) return;
      this.close();
      this.events.closed(`udp error: ${error.message}`);
    });
  }

  get open(): boolean {
    return this.started && !this.closed;
  }

  async prepare(ready: VoiceReady): Promise<SelectProtocolData> {
    this.remote = { address: ready.ip, port: ready.port };
    const request = discoveryRequest(ready.ssrc);
    const found = await new Promise<{ address: string; port: number }>((resolve, reject) => {
      let tries = 0;
      const timer = setInterval(() => send(), DISCOVERY_RETRY_MS);
      const finish = (error?: Error, value?: { address: string; port: number }): void => {
        clearInterval(timer);
        this.discovery = undefined;
        if (error) reject(error);
        else resolve(value!);
      };
      const send = (): void => {
        if (this.closed) return finish(new Error('transport closed'));
        if (tries++ >= DISCOVERY_TRIES) return finish(new Error('no IP discovery response'));
        this.socket.send(request, ready.port, ready.ip);
      };
      this.discovery = (packet) => {
        const parsed = parseDiscoveryResponse(packet);
        if (parsed) finish(undefined, parsed);
      };
      send();
    });
    return found;
  }

  async start(): Promise<void> {
    this.started = true;
    this.keepAlive = setInterval(() => {
      const packet = new Uint8Array(8);
      new DataView(packet.buffer).setUint32(0, this.keepAliveCounter++ >>> 0, true);
      this.rawSend(packet);
    }, KEEPALIVE_MS);
    (this.keepAlive as { unref?: () => void }).unref?.();
  }

  /** A UDP socket has no connection to lose: nothing to reopen. */
  async reopen(): Promise<void> {
    if (this.closed) throw new Error('transport closed');
  }

  send(packet: Uint8Array): void {
    if (this.started) this.rawSend(packet.slice());
  }

  private rawSend(packet: Uint8Array): void {
    if (this.closed || !this.remote) return;
    this.socket.send(packet, this.remote.port, this.remote.address);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}
