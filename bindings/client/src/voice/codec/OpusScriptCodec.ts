import { FRAME_SAMPLES, SAMPLE_RATE, type OpusCodecFactory, type OpusDecoder, type OpusEncoder } from './OpusCodec.ts';

/** The part of opusscript's class we use (libopus 1.4 compiled to WASM). */
interface OpusScriptInstance {
  /** Takes the PCM as bytes (an Int16Array would be copied element by element into bytes). */
  encode(pcmBytes: Uint8Array, frameSize: number): Uint8Array;
  decode(packet: Uint8Array): Uint8Array;
  setBitrate(bitrate: number): void;
  encoderCTL(ctl: number, arg: number): void;
  delete(): void;
}
type OpusScriptClass = (new (rate: number, channels: number, application: number) => OpusScriptInstance) & {
  Application: { VOIP: number };
};

const OPUS_SET_INBAND_FEC = 4012;
const OPUS_SET_PACKET_LOSS_PERC = 4014;

let loading: Promise<OpusScriptClass> | undefined;

/** Loads opusscript on first use: a literal dynamic import, so browser bundles can mark it external. */
function loadOpusScript(): Promise<OpusScriptClass> {
  loading ??= import('opusscript').then((mod: unknown) => {
    const m = mod as { default?: OpusScriptClass };
    // opusscript returns Buffers; outside Node a minimal stand-in is enough for Buffer.from.
    const g = globalThis as { Buffer?: unknown };
    if (g.Buffer === undefined) g.Buffer = { from: (bytes: Uint8Array) => Uint8Array.from(bytes) };
    return (m.default ?? (mod as OpusScriptClass)) as OpusScriptClass;
  });
  return loading;
}

class OpusScriptEncoder implements OpusEncoder {
  readonly name = 'opusscript';
  constructor(private readonly opus: OpusScriptInstance) {}

  encode(pcm: Int16Array, output: (packet: Uint8Array) => void): void {
    const packet = this.opus.encode(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength), FRAME_SAMPLES);
    output(new Uint8Array(packet.buffer, packet.byteOffset, packet.length));
  }

  destroy(): void {
    this.opus.delete();
  }
}

class OpusScriptDecoder implements OpusDecoder {
  readonly name = 'opusscript';
  private readonly empty = new Uint8Array(0);
  constructor(private readonly opus: OpusScriptInstance) {}

  decode(packet: Uint8Array, output: (pcm: Int16Array) => void): void {
    output(this.samples(this.opus.decode(packet)));
  }

  /**
   * An empty packet makes libopus conceal (opus_decode with len 0). opusscript asks for its
   * largest frame size, so libopus conceals 60 ms; we play the first 20 ms of it.
   */
  decodeLost(output: (pcm: Int16Array) => void): void {
    output(this.samples(this.opus.decode(this.empty)).subarray(0, FRAME_SAMPLES));
  }

  private samples(bytes: Uint8Array): Int16Array {
    // opusscript returns a fresh Buffer, often at an odd pool offset: copy when unaligned.
    if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1);
    return new Int16Array(Uint8Array.from(bytes).buffer);
  }

  destroy(): void {
    this.opus.delete();
  }
}

/** Opus through opusscript (Node, and browsers without WebCodecs). Mono, 20 ms, 64 kbit/s, in-band FEC on. */
export const opusScriptCodec: OpusCodecFactory = {
  name: 'opusscript',
  async createEncoder() {
    const OpusScript = await loadOpusScript();
    const opus = new OpusScript(SAMPLE_RATE, 1, OpusScript.Application.VOIP);
    opus.setBitrate(64_000);
    opus.encoderCTL(OPUS_SET_INBAND_FEC, 1);
    opus.encoderCTL(OPUS_SET_PACKET_LOSS_PERC, 5);
    return new OpusScriptEncoder(opus);
  },
  async createDecoder() {
    const OpusScript = await loadOpusScript();
    return new OpusScriptDecoder(new OpusScript(SAMPLE_RATE, 1, OpusScript.Application.VOIP));
  },
};
