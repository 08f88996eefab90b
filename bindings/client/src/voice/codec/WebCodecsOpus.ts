import { FRAME_SAMPLES, SAMPLE_RATE, type OpusCodecFactory, type OpusDecoder, type OpusEncoder } from './OpusCodec.ts';

const FRAME_US = 20_000;

/** True when the browser has WebCodecs audio with Opus (Chromium does, headless too). */
export async function webCodecsOpusSupported(): Promise<boolean> {
  const g = globalThis as { AudioEncoder?: typeof AudioEncoder; AudioDecoder?: typeof AudioDecoder };
  if (typeof g.AudioEncoder !== 'function' || typeof g.AudioDecoder !== 'function') return false;
  try {
    const [enc, dec] = await Promise.all([
      g.AudioEncoder.isConfigSupported(encoderConfig()),
      g.AudioDecoder.isConfigSupported(decoderConfig()),
    ]);
    return enc.supported === true && dec.supported === true;
  } catch {
    return false;
  }
}

function encoderConfig(): AudioEncoderConfig {
  return {
    codec: 'opus',
    sampleRate: SAMPLE_RATE,
    numberOfChannels: 1,
    bitrate: 64_000,
    opus: { frameDuration: FRAME_US, useinbandfec: true, packetlossperc: 5 },
  } as AudioEncoderConfig;
}

function decoderConfig(): AudioDecoderConfig {
  return { codec: 'opus', sampleRate: SAMPLE_RATE, numberOfChannels: 1 };
}

class WebCodecsEncoder implements OpusEncoder {
  readonly name = 'webcodecs';
  private readonly encoder: AudioEncoder;
  private readonly outputs: ((packet: Uint8Array) => void)[] = [];
  private timestamp = 0;
  private readonly f32 = new Float32Array(FRAME_SAMPLES);

  constructor() {
    this.encoder = new AudioEncoder({
      output: (chunk) => {
        const bytes = new Uint8Array(chunk.byteLength);
        chunk.copyTo(bytes);
        this.outputs.shift()?.(bytes);
      },
      error: () => {
        this.outputs.length = 0;
      },
    });
    this.encoder.configure(encoderConfig());
  }

  encode(pcm: Int16Array, output: (packet: Uint8Array) => void): void {
    if (this.encoder.state !== 'configured') return;
    for (let i = 0; i < FRAME_SAMPLES; i++) this.f32[i] = (pcm[i] ?? 0) / 32768;
    const data = new AudioData({
      format: 'f32-planar',
      sampleRate: SAMPLE_RATE,
      numberOfFrames: FRAME_SAMPLES,
      numberOfChannels: 1,
      timestamp: this.timestamp,
      data: this.f32,
    });
    this.timestamp += FRAME_US;
    this.outputs.push(output);
    this.encoder.encode(data);
    data.close();
  }

  destroy(): void {
    if (this.encoder.state !== 'closed') this.encoder.close();
  }
}

/**
 * WebCodecs has no loss concealment call: a lost frame plays the last frame again, faded, and
 * then silence (good enough for a 20 ms gap; longer gaps fade out).
 */
class WebCodecsDecoder implements OpusDecoder {
  readonly name = 'webcodecs';
  private readonly decoder: AudioDecoder;
  private readonly outputs: ((pcm: Int16Array) => void)[] = [];
  private timestamp = 0;
  private last = new Int16Array(FRAME_SAMPLES);
  private fade = 0;
  private readonly f32 = new Float32Array(FRAME_SAMPLES * 6);

  constructor() {
    this.decoder = new AudioDecoder({
      output: (data) => {
        const frames = Math.min(data.numberOfFrames, this.f32.length);
        data.copyTo(this.f32.subarray(0, frames), { planeIndex: 0, format: 'f32-planar' } as AudioDataCopyToOptions);
        data.close();
        const pcm = new Int16Array(frames);
        for (let i = 0; i < frames; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(this.f32[i]! * 32767)));
        this.last = pcm;
        this.fade = 0;
        this.outputs.shift()?.(pcm);
      },
      error: () => {
        this.outputs.length = 0;
      },
    });
    this.decoder.configure(decoderConfig());
  }

  decode(packet: Uint8Array, output: (pcm: Int16Array) => void): void {
    if (this.decoder.state !== 'configured') return;
    this.outputs.push(output);
    this.decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: this.timestamp, data: packet }));
    this.timestamp += FRAME_US;
  }

  decodeLost(output: (pcm: Int16Array) => void): void {
    this.timestamp += FRAME_US;
    this.fade++;
    const gain = this.fade === 1 ? 0.5 : 0;
    const pcm = new Int16Array(FRAME_SAMPLES);
    if (gain > 0) for (let i = 0; i < FRAME_SAMPLES; i++) pcm[i] = Math.round((this.last[i] ?? 0) * gain * (1 - i / FRAME_SAMPLES));
    output(pcm);
  }

  destroy(): void {
    if (this.decoder.state !== 'closed') this.decoder.close();
  }
}

/** Opus through the browser's WebCodecs AudioEncoder/AudioDecoder (mono, 20 ms, 64 kbit/s). */
export const webCodecsOpus: OpusCodecFactory = {
  name: 'webcodecs',
  async createEncoder() {
    return new WebCodecsEncoder();
  },
  async createDecoder() {
    return new WebCodecsDecoder();
  },
};
