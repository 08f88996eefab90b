import {
  CoreCryptoBackend,
  DAVE_MAX_OVERHEAD_OPUS,
  JitterPop,
  Mixer,
  RTP_OPUS_FRAME_TICKS,
  RTP_OPUS_PAYLOAD_TYPE,
  TRANSPORT_OVERHEAD,
  VoiceActivityDetector,
  VoiceCore,
  type TransportCipher,
  type WasmBuffer,
  type TransportMode,
} from '@social-layer/core-wasm';
import { VOICE_MAX_PACKET_BYTES } from '@social-layer/protocol';
import { CaptureGate } from './CaptureGate.ts';
import { CaptureQueue } from './CaptureQueue.ts';
import { FRAME_MS, FRAME_SAMPLES, OPUS_SILENCE, SAMPLE_RATE, type OpusCodecFactory, type OpusEncoder } from './codec/OpusCodec.ts';
import { FrameClock } from './FrameClock.ts';
import { FrameKeys } from './FrameKeys.ts';
import { IDLE_TICKS, ReceiveStream } from './ReceiveStream.ts';

/**
 * `Client::UserAudioReceivedCallback`: 20 ms of one participant's decoded audio after their
 * volume is applied. Change `samples` in place to alter what is played; set
 * `out.shouldMute = true` (or return true) to keep the SDK from playing it.
 */
export type UserAudioReceivedCallback = (
  userId: string,
  samples: Int16Array,
  samplesPerChannel: number,
  sampleRate: number,
  channels: number,
  out: { shouldMute: boolean },
) => boolean | void;

/** `Client::UserAudioCapturedCallback`: each 20 ms of local input before gating and encoding. */
export type UserAudioCapturedCallback = (samples: Int16Array, samplesPerChannel: number, sampleRate: number, channels: number) => void;

/** What the pipeline asks of the call around it. */
export interface PipelineHost {
  /** One sealed RTP packet for the current transport (the transport copies it if it queues). */
  sendPacket(packet: Uint8Array): void;
  /** Our gate opened or closed: op 5 Speaking goes out (before the first packet of a spurt). */
  speaking(speaking: boolean): void;
  /** Someone (us included) started or stopped playing sound: speakingStatusChanged. */
  playing(userId: string, playing: boolean): void;
}

/** Test and diagnostics taps: what the encoder made, and what arrived after the transport layer. */
export interface PipelineTaps {
  encoded?(opus: Uint8Array): void;
  received?(userId: string, frame: Uint8Array): void;
}

/**
 * Voice processing and diagnostics around the media path (the VoiceManager sets one per call):
 * noise suppression, no-input detection and the AEC dump.
 */
export interface CaptureProcessor {
  /** Each captured 20 ms frame, after onCaptured and before the gate; may change it in place. */
  captured(frame: Int16Array): void;
  /** Whether played() wants the mix (mixing costs a little; Node skips it otherwise). */
  readonly wantsPlayed: boolean;
  /** Once per tick, after the receive side: what was played (the mix), undefined for silence. */
  played(mixed: Int16Array | undefined): void;
}

export interface PipelineStats {
  framesSent: number;
  packetsReceived: number;
  badPackets: number;
  decryptFailures: number;
  framesDecoded: number;
  framesConcealed: number;
  /** Frames not sent because the E2EE group had no keys yet. */
  framesWithoutKeys: number;
}

const MAX_STREAMS = 32;
const SILENCE_FRAMES = 5;
const PENDING_PER_SSRC = 16;

/**
 * The media path of one call. Send: captured frame -> input volume -> VAD or push-to-talk gate
 * -> Opus encode -> DAVE encrypt -> RTP header -> transport seal -> transport. Receive: transport
 * open -> per-sender jitter buffer -> (once per 20 ms) DAVE decrypt -> Opus decode, or loss
 * concealment where the jitter buffer reports a gap -> participant volume -> received callback
 * -> mixer -> playback. Both paths run on one 20 ms clock.
 */
export class MediaPipeline {
  readonly gate: CaptureGate;
  readonly keys: FrameKeys;
  readonly stats: PipelineStats = {
    framesSent: 0,
    packetsReceived: 0,
    badPackets: 0,
    decryptFailures: 0,
    framesDecoded: 0,
    framesConcealed: 0,
    framesWithoutKeys: 0,
  };
  taps: PipelineTaps = {};
  onReceived: UserAudioReceivedCallback | undefined;
  onCaptured: UserAudioCapturedCallback | undefined;
  /** RMS (0..1) of what the speakers played over the last ~100 ms (browsers; 0 in Node). */
  playbackLevel = 0;
  /** Mixed output of everyone, each 20 ms that has any (browser playback). */
  onMixed: ((mixed: Int16Array) => void) | undefined;
  /** A frame failed somewhere on the clock (logged by the call; the clock keeps going). */
  onError: ((error: unknown) => void) | undefined;
  /** Noise suppression, no-input detection, AEC dump (set by the VoiceManager). */
  processor: CaptureProcessor | undefined;

  private readonly clock: FrameClock;
  private readonly capture: CaptureQueue;
  private readonly vad: VoiceActivityDetector;
  private readonly mixer: Mixer;
  private readonly freeSlots: number[] = [];
  private readonly streams = new Map<string, ReceiveStream>();
  private readonly ssrcUsers = new Map<number, string>();
  private readonly pendingBySsrc = new Map<number, Uint8Array[]>();
  private encoder: OpusEncoder | undefined;
  private sendCipher: TransportCipher | undefined;
  private recvCipher: TransportCipher | undefined;
  // WasmBuffers, not cached views: `.bytes` stays valid even if core memory ever grows.
  private readonly sendWasm: WasmBuffer;
  private readonly recvWasm: WasmBuffer;
  private readonly decryptWasm: WasmBuffer;
  private readonly backend: CoreCryptoBackend;
  private ssrc = 0;
  private sequence = (Math.random() * 0x10000) >>> 0;
  private timestamp = (Math.random() * 0x1_0000_0000) >>> 0;
  private talking = false;
  private silenceLeft = 0;
  private inputGain = 1;
  private outputGain = 1;
  private deaf = false;
  private selfMute = false;
  private readonly gains = new Map<string, number>();
  private readonly localMutes = new Set<string>();
  private readonly mixList: number[] = [];
  private readonly receivedOut = { shouldMute: false };
  private destroyed = false;
  /** Media flows only while the call has a transport and keys (set by the call). */
  connected = false;

  private constructor(
    readonly core: VoiceCore,
    private readonly codec: OpusCodecFactory,
    readonly selfId: string,
    private readonly host: PipelineHost,
    maxCaptureFrames: number,
  ) {
    this.backend = CoreCryptoBackend.over(core);
    this.vad = new VoiceActivityDetector(core, { maxFrameSamples: FRAME_SAMPLES });
    this.gate = new CaptureGate(this.vad);
    this.keys = new FrameKeys(core);
    this.mixer = new Mixer(core, { maxStreams: MAX_STREAMS, frameSamples: FRAME_SAMPLES, format: 'i16' });
    for (let k = MAX_STREAMS - 1; k >= 0; k--) this.freeSlots.push(k);
    this.capture = new CaptureQueue(maxCaptureFrames);
    const packetBytes = VOICE_MAX_PACKET_BYTES + 64;
    this.sendWasm = core.alloc(packetBytes);
    this.recvWasm = core.alloc(packetBytes);
    this.decryptWasm = core.alloc(packetBytes);
    this.clock = new FrameClock(() => this.tick(), FRAME_MS);
  }

  static async create(options: {
    codec: OpusCodecFactory;
    selfId: string;
    host: PipelineHost;
    /** Most captured audio held for sending (default 3000 frames = 60 s: bots push ahead). */
    maxCaptureFrames?: number;
  }): Promise<MediaPipeline> {
    const core = await VoiceCore.create({ poolBytes: 8 << 20 });
    const pipeline = new MediaPipeline(core, options.codec, options.selfId, options.host, options.maxCaptureFrames ?? 3000);
    pipeline.encoder = await options.codec.createEncoder();
    return pipeline;
  }

  start(): void {
    if (!this.destroyed) this.clock.start();
  }

  stop(): void {
    this.clock.stop();
  }

  // ---- configuration ---------------------------------------------------------------------

  /** The transport key of Session Description (op 4); a new key restarts the nonce counter. */
  setTransportKey(mode: TransportMode, key: Uint8Array): void {
    this.sendCipher?.destroy();
    this.recvCipher?.destroy();
    this.sendCipher = this.backend.createTransportCipher(mode, key);
    this.recvCipher = this.backend.createTransportCipher(mode, key);
  }

  setSsrc(ssrc: number): void {
    this.ssrc = ssrc >>> 0;
  }

  /** A participant's SSRC (from op 5): packets that arrived for it meanwhile are replayed. */
  mapSsrc(ssrc: number, userId: string): void {
    ssrc >>>= 0;
    if (userId === this.selfId) return;
    for (const [other, id] of this.ssrcUsers) if (id === userId && other !== ssrc) this.ssrcUsers.delete(other);
    this.ssrcUsers.set(ssrc, userId);
    this.ensureStream(userId);
    const pending = this.pendingBySsrc.get(ssrc);
    this.pendingBySsrc.delete(ssrc);
    for (const packet of pending ?? []) this.receivePacket(packet);
  }

  removeUser(userId: string): void {
    for (const [ssrc, id] of this.ssrcUsers) if (id === userId) this.ssrcUsers.delete(ssrc);
    const stream = this.streams.get(userId);
    if (stream) {
      if (stream.active) this.host.playing(userId, false);
      stream.destroy();
      this.streams.delete(userId);
      if (stream.slot >= 0) this.freeSlots.push(stream.slot);
    }
    this.keys.removeSender(userId);
  }

  setSelfMute(mute: boolean): void {
    this.selfMute = mute;
    this.gate.selfMute = mute || this.deaf;
  }

  setSelfDeaf(deaf: boolean): void {
    this.deaf = deaf;
    this.gate.selfMute = this.selfMute || deaf;
    if (deaf) for (const stream of this.streams.values()) this.quiet(stream);
  }

  /** 0-200 (100 = unchanged); kept for participants who have not sent anything yet. */
  setParticipantVolume(userId: string, volume: number): void {
    this.gains.set(userId, volume / 100);
    const stream = this.streams.get(userId);
    if (stream) stream.gain = volume / 100;
  }

  setLocalMute(userId: string, mute: boolean): void {
    if (mute) this.localMutes.add(userId);
    else this.localMutes.delete(userId);
    const stream = this.streams.get(userId);
    if (stream) stream.localMute = mute;
  }

  /** 0-100 (100 = unchanged). */
  setInputVolume(volume: number): void {
    this.inputGain = volume / 100;
  }

  /** 0-200 (100 = unchanged), applied in the mixer. */
  setOutputVolume(volume: number): void {
    this.outputGain = volume / 100;
    for (const stream of this.streams.values()) if (stream.slot >= 0) this.mixer.setGain(stream.slot, this.outputGain);
  }

  /** 48 kHz mono PCM from the microphone worklet or a bot; sent at real time, 20 ms per tick. */
  pushCapturedAudio(samples: Int16Array | Float32Array): void {
    if (!this.destroyed) this.capture.push(samples);
  }

  setMaxCaptureFrames(frames: number): void {
    this.capture.maxFrames = Math.max(1, frames);
  }

  /** Drops captured audio not yet sent. */
  clearCapturedAudio(): void {
    this.capture.clear();
  }

  get capturedFramesQueued(): number {
    return this.capture.length;
  }

  // ---- the clock ---------------------------------------------------------------------------

  private tick(): void {
    try {
      this.sendTick();
      this.receiveTick();
    } catch (error) {
      // One bad frame must not stop the clock; the call logs through its host.
      this.onError?.(error);
    }
  }

  private sendTick(): void {
    const frame = this.capture.take();
    if (frame) {
      if (this.inputGain !== 1) scale(frame, this.inputGain);
      this.onCaptured?.(frame, FRAME_SAMPLES, SAMPLE_RATE, 1);
      this.processor?.captured(frame);
    }
    const open = this.connected && this.gate.decide(frame, nowMs());
    const timestamp = this.timestamp;
    this.timestamp = (this.timestamp + RTP_OPUS_FRAME_TICKS) >>> 0;
    if (open && frame) {
      if (!this.talking) {
        this.talking = true;
        this.silenceLeft = 0;
        this.host.speaking(true);
        this.host.playing(this.selfId, true);
      }
      this.encoder?.encode(frame, (opus) => this.sendFrame(opus, timestamp));
    } else {
      if (this.talking) {
        this.talking = false;
        this.silenceLeft = this.connected ? SILENCE_FRAMES : 0;
        if (this.silenceLeft === 0) this.stopTalking();
      }
      if (this.silenceLeft > 0) {
        this.sendFrame(OPUS_SILENCE, timestamp);
        if (--this.silenceLeft === 0) this.stopTalking();
      }
    }
    if (frame) this.capture.recycle(frame);
  }

  private stopTalking(): void {
    this.host.speaking(false);
    this.host.playing(this.selfId, false);
  }

  private sendFrame(opus: Uint8Array, timestamp: number): void {
    const cipher = this.sendCipher;
    if (!cipher || !this.connected || this.destroyed) return;
    const silence = opus.length === 3 && opus[0] === 0xf8 && opus[1] === 0xff && opus[2] === 0xfe;
    const encryptor = this.keys.encryptor;
    // Never send media the group could not have encrypted: silence is the only plaintext frame.
    if (!encryptor && !silence) {
      this.stats.framesWithoutKeys++;
      return;
    }
    const packet = this.sendWasm.bytes;
    if (opus.length + 12 + DAVE_MAX_OVERHEAD_OPUS + TRANSPORT_OVERHEAD > packet.length) return;
    this.taps.encoded?.(opus);
    const view = new DataView(packet.buffer, packet.byteOffset, 12);
    packet[0] = 0x80;
    packet[1] = RTP_OPUS_PAYLOAD_TYPE;
    view.setUint16(2, this.sequence);
    view.setUint32(4, timestamp >>> 0);
    view.setUint32(8, this.ssrc);
    let frameLength: number;
    if (encryptor) {
      frameLength = encryptor.encrypt(opus, opus.length, packet.subarray(12));
      if (frameLength < 0) {
        this.stats.framesWithoutKeys++;
        return;
      }
    } else {
      packet.set(opus, 12);
      frameLength = opus.length;
    }
    const sealed = cipher.seal(packet, 12 + frameLength);
    if (sealed < 0) return;
    this.sequence = (this.sequence + 1) & 0xffff;
    this.stats.framesSent++;
    this.host.sendPacket(packet.subarray(0, sealed));
  }

  // ---- receiving ---------------------------------------------------------------------------

  /** One packet from the transport (a copy is not needed: it is copied into core memory). */
  receivePacket(packet: Uint8Array): void {
    const cipher = this.recvCipher;
    if (!cipher || this.destroyed) return;
    if (packet.length < 12 + TRANSPORT_OVERHEAD || packet.length > this.recvWasm.capacity) {
      this.stats.badPackets++;
      return;
    }
    if ((packet[1]! & 0x7f) !== RTP_OPUS_PAYLOAD_TYPE || packet[0]! >> 6 !== 2) return;
    const ssrc = ((packet[8]! << 24) | (packet[9]! << 16) | (packet[10]! << 8) | packet[11]!) >>> 0;
    const userId = this.ssrcUsers.get(ssrc);
    if (userId === undefined) {
      // The server sends op 5 before relaying an SSRC, but on another socket: hold a few.
      const pending = this.pendingBySsrc.get(ssrc) ?? [];
      if (pending.length < PENDING_PER_SSRC && this.pendingBySsrc.size < 64) pending.push(packet.slice());
      this.pendingBySsrc.set(ssrc, pending);
      return;
    }
    if (this.deaf) return;
    const buffer = this.recvWasm.bytes;
    buffer.set(packet);
    const length = cipher.open(buffer, packet.length);
    if (length < 0) {
      this.stats.badPackets++;
      return;
    }
    this.stats.packetsReceived++;
    const stream = this.ensureStream(userId);
    if (!stream) return;
    const sequence = (buffer[2]! << 8) | buffer[3]!;
    const timestamp = ((buffer[4]! << 24) | (buffer[5]! << 16) | (buffer[6]! << 8) | buffer[7]!) >>> 0;
    const frame = buffer.subarray(cipher.frameOffset, cipher.frameOffset + length);
    this.taps.received?.(userId, frame);
    stream.arrived(timestamp, nowMs());
    stream.jitter.push(sequence, timestamp, frame, length);
  }

  private receiveTick(): void {
    for (const stream of this.streams.values()) this.pull(stream);
    let count = 0;
    const mix = this.mixList;
    for (const stream of this.streams.values()) {
      if (!stream.ready) continue;
      stream.ready = false;
      if (stream.slot >= 0) mix[count++] = stream.slot;
    }
    const wantsPlayed = this.processor?.wantsPlayed === true;
    let mixed: Int16Array | undefined;
    if (count > 0 && (this.onMixed || wantsPlayed)) {
      mix.length = count;
      mixed = this.mixer.mix(mix) as Int16Array;
      this.onMixed?.(mixed);
    }
    if (wantsPlayed) this.processor!.played(mixed);
  }

  private pull(stream: ReceiveStream): void {
    const result = stream.jitter.pop();
    const decoder = stream.decoder;
    if (result >= 0) {
      const frame = stream.jitter.frame();
      if (result === 3 && frame[0] === 0xf8 && frame[1] === 0xff && frame[2] === 0xfe) {
        this.idle(stream);
        return;
      }
      const decryptor = this.keys.decryptor(stream.userId);
      const decrypted = this.decryptWasm.bytes;
      const plain = decryptor ? decryptor.decrypt(frame, result, decrypted) : -1;
      if (plain < 0) {
        this.stats.decryptFailures++;
        if (stream.active && decoder) this.conceal(stream, decoder);
        else this.idle(stream);
        return;
      }
      if (!decoder) return;
      this.stats.framesDecoded++;
      decoder.decode(decrypted.subarray(0, plain), (pcm) => this.deliver(stream, pcm));
    } else if (result === JitterPop.Lost) {
      if (stream.active && decoder) this.conceal(stream, decoder);
    } else this.idle(stream);
  }

  private conceal(stream: ReceiveStream, decoder: NonNullable<ReceiveStream['decoder']>): void {
    this.stats.framesConcealed++;
    decoder.decodeLost((pcm) => this.deliver(stream, pcm));
  }

  private idle(stream: ReceiveStream): void {
    if (stream.active && ++stream.idleTicks >= IDLE_TICKS) this.quiet(stream);
  }

  private quiet(stream: ReceiveStream): void {
    if (!stream.active) return;
    stream.active = false;
    stream.idleTicks = 0;
    this.host.playing(stream.userId, false);
  }

  private deliver(stream: ReceiveStream, pcm: Int16Array): void {
    if (stream.destroyed || this.deaf || stream.localMute) return;
    // Re-read the mixer input each time: a view taken earlier would be stale after memory growth.
    const samples = stream.slot >= 0 ? (this.mixer.input(stream.slot) as Int16Array) : stream.samples;
    const n = Math.min(FRAME_SAMPLES, pcm.length);
    samples.set(pcm.subarray(0, n));
    if (n < FRAME_SAMPLES) samples.fill(0, n);
    if (stream.gain !== 1) scale(samples, stream.gain);
    stream.idleTicks = 0;
    if (!stream.active) {
      stream.active = true;
      this.host.playing(stream.userId, true);
    }
    const out = this.receivedOut;
    out.shouldMute = false;
    if (this.onReceived && this.onReceived(stream.userId, samples, FRAME_SAMPLES, SAMPLE_RATE, 1, out) === true) out.shouldMute = true;
    if (!out.shouldMute) stream.ready = true;
  }

  private ensureStream(userId: string): ReceiveStream | undefined {
    if (this.destroyed || userId === this.selfId) return undefined;
    let stream = this.streams.get(userId);
    if (stream) return stream;
    const slot = this.freeSlots.pop() ?? -1;
    const samples = slot >= 0 ? (this.mixer.input(slot) as Int16Array) : new Int16Array(FRAME_SAMPLES);
    if (slot >= 0) this.mixer.setGain(slot, this.outputGain);
    stream = new ReceiveStream(this.core, userId, slot, samples);
    stream.gain = this.gains.get(userId) ?? 1;
    stream.localMute = this.localMutes.has(userId);
    this.streams.set(userId, stream);
    const created = stream;
    void this.codec.createDecoder().then(
      (decoder) => {
        if (created.destroyed) decoder.destroy();
        else created.decoder = decoder;
      },
      (error: unknown) => this.onError?.(error),
    );
    return stream;
  }

  /** Whether we are sending audio now (the gate is open). */
  get isTalking(): boolean {
    return this.talking;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.clock.stop();
    for (const userId of [...this.streams.keys()]) this.removeUser(userId);
    this.destroyed = true;
    this.connected = false;
    this.encoder?.destroy();
    this.encoder = undefined;
    this.sendCipher?.destroy();
    this.recvCipher?.destroy();
    this.keys.destroy();
    this.vad.destroy();
    this.mixer.destroy();
    this.sendWasm.free();
    this.recvWasm.free();
    this.decryptWasm.free();
    this.capture.clear();
  }
}

function scale(samples: Int16Array, gain: number): void {
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i]! * gain);
    samples[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
}

function nowMs(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
