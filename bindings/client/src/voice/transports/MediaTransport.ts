import type { VoiceTransport } from '@social-layer/protocol';

/** The Ready (op 2) fields a transport needs. */
export interface VoiceReady {
  ssrc: number;
  ip: string;
  port: number;
  modes: string[];
  transports?: string[];
}

/** Session Description (op 4). */
export interface SessionDescription {
  mode: string;
  secret_key: number[];
  dave_protocol_version: number;
  media_session?: string;
  sdp?: string;
}

/** `data` of Select Protocol (op 1), without `mode` (the call adds it). */
export interface SelectProtocolData {
  address: string;
  port: number;
  sdp?: string;
}

export interface MediaTransportEvents {
  packet(packet: Uint8Array): void;
  /** The transport failed or was cut after it opened; it reports nothing more. */
  closed(reason: string): void;
}

/**
 * One way of carrying RTP packets to and from the relay (contracts-voice.md 2): prepare() runs
 * between Ready and Select Protocol (IP discovery for udp, the SDP offer for webrtc), start()
 * after Session Description. Packets handed to send() may be reused by the caller at once:
 * implementations that queue copy them.
 */
export interface MediaTransport {
  readonly kind: VoiceTransport;
  prepare(ready: VoiceReady): Promise<SelectProtocolData>;
  start(description: SessionDescription): Promise<void>;
  /** Opens again after a cut (same session): the websocket transport reconnects its socket. */
  reopen(): Promise<void>;
  send(packet: Uint8Array): void;
  /** True while packets can flow. */
  readonly open: boolean;
  close(): void;
}

export type MediaTransportFactory = (events: MediaTransportEvents) => MediaTransport | undefined;

/** Resolves with `promise` or rejects after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
