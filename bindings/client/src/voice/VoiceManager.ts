import {
  GatewayOpcode,
  VoiceTransport,
  type Lobby,
  type VoiceServerUpdate,
  type VoiceState,
  type VoiceStateUpdateCommand,
} from '@social-layer/protocol';
import { ErrorType, LoggingSeverity } from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import { checkLogDirArgs, LogFile } from '../diagnostics/LogFile.ts';
import { Logger, type LogCallback } from '../Logger.ts';
import type { WebSocketConstructor } from '../webSocket.ts';
import { AudioEngine, DEFAULT_AUDIO_PROCESSING, type AudioDevice, type AudioProcessingSettings } from './audio/AudioEngine.ts';
import { Call, type CallHost } from './Call.ts';
import { CallInfoHandle } from './CallInfoHandle.ts';
import type { OpusCodecFactory } from './codec/OpusCodec.ts';
import { defaultOpusCodec, mixedOpusCodec } from './codec/selectCodec.ts';
import { AecDump } from './processing/AecDump.ts';
import { CallProcessor } from './processing/CallProcessor.ts';
import { NO_INPUT_THRESHOLD_MAX, NO_INPUT_THRESHOLD_MIN, NoInputDetector } from './processing/NoInputDetector.ts';
import { rnnoiseAvailable } from './processing/RnnoiseSuppressor.ts';
import type { MediaPipeline, UserAudioCapturedCallback, UserAudioReceivedCallback } from './MediaPipeline.ts';
import type { MediaTransport, MediaTransportEvents, VoiceReady } from './transports/MediaTransport.ts';
import { nodeDgram, UdpMediaTransport } from './transports/UdpMediaTransport.ts';
import { resolveVoiceSocket, type VoiceSocketConstructor } from './transports/voiceSocket.ts';
import { WebRtcMediaTransport, webRtcAvailable } from './transports/WebRtcMediaTransport.ts';
import { WebSocketMediaTransport } from './transports/WebSocketMediaTransport.ts';
import { VoiceStates } from './VoiceStates.ts';

/** `ClientOptions.voice`. */
export interface VoiceOptions {
  /** WebSocket class for the voice gateway and the websocket transport (default: the Gateway's). */
  webSocket?: WebSocketConstructor | VoiceSocketConstructor;
  /**
   * Transports to try, in order, among those the server offers. Default: webrtc then websocket
   * in browsers, udp then websocket in Node.
   */
  transports?: VoiceTransport[];
  /** Opus implementation (default: WebCodecs in browsers that have it, else opusscript). */
  codec?: OpusCodecFactory;
  /** From startCall to VOICE_SERVER_UPDATE (default 10 s): past it the call ends with JoinTimeout. */
  joinTimeoutMs?: number;
  /** How long a call keeps reconnecting before it gives up (default 30 s). */
  reconnectTimeoutMs?: number;
  /** First reconnect delay (default 250 ms). */
  reconnectBaseDelayMs?: number;
}

/** What the voice side needs from the Client. */
export interface VoiceManagerHost {
  selfId(): string | undefined;
  /** Sends a main Gateway op; false when not connected. */
  sendGateway(op: number, d: unknown): boolean;
  participantChanged(lobbyId: string, userId: string, added: boolean): void;
  /** setNoAudioInputCallback's event. */
  noAudioInput(inputDetected: boolean): void;
  readonly queueEvents: boolean;
  readonly apiBase: string;
  readonly webSocket: WebSocketConstructor | undefined;
}

/**
 * The Client's voice half: voice states of every lobby (so games see calls they are not in),
 * the calls it is in, and the audio devices and volumes they share. Client.ts delegates to it.
 */
export class VoiceManager {
  readonly states = new VoiceStates();
  private readonly calls = new Map<string, Call>();
  /** Calls that ended since the last runCallbacks(): their last events may still be queued. */
  private readonly endedCalls: Call[] = [];
  private readonly audio = new AudioEngine();
  private inputVolume = 100;
  private outputVolume = 100;
  private selfMuteAll = false;
  private selfDeafAll = false;
  private codecPromise: Promise<OpusCodecFactory> | undefined;
  /** Voice and transport logs (addVoiceLogCallback, setVoiceLogDir); the Client's own log leaves them out. */
  readonly logger = new Logger();
  private readonly voiceLogFile = new LogFile();
  private voiceLogDir = '';
  /**
   * Capture processing. Node has no microphone: what a program pushes is taken as it is, so
   * noise suppression starts off there (RNNoise when turned on), and echo cancellation and gain
   * control have nothing to act on (no speaker feeds back into pushed audio).
   */
  private processing: AudioProcessingSettings = rnnoiseAvailable()
    ? { ...DEFAULT_AUDIO_PROCESSING, noiseSuppression: false }
    : { ...DEFAULT_AUDIO_PROCESSING };
  private readonly detector = new NoInputDetector((detected) => this.host.noAudioInput(detected));
  private readonly processors = new Map<Call, CallProcessor>();
  private aecDump = false;
  private opusHardware = { encode: true, decode: true };
  private engineManagedAudioSession = false;
  /** Whether any call was started yet: a few settings only count before the first. */
  private started = false;

  constructor(
    private readonly host: VoiceManagerHost,
    private readonly options: VoiceOptions = {},
  ) {}

  // ---- calls -------------------------------------------------------------------------------

  startCall(
    lobbyId: string,
    callbacks: { onReceived?: UserAudioReceivedCallback; onCaptured?: UserAudioCapturedCallback } = {},
  ): Call | undefined {
    if (this.calls.has(lobbyId)) return undefined;
    this.started = true;
    const call = new Call(this.callHost(), lobbyId, callbacks);
    this.calls.set(lobbyId, call);
    call.start();
    return call.isValid() ? call : undefined;
  }

  async endCall(lobbyId: string): Promise<void> {
    await this.calls.get(lobbyId)?.end();
  }

  async endCalls(): Promise<void> {
    await Promise.all([...this.calls.values()].map((call) => call.end()));
  }

  getCall(lobbyId: string): Call | undefined {
    return this.calls.get(lobbyId);
  }

  getCalls(): Call[] {
    return [...this.calls.values()];
  }

  getCallInfoHandle(lobbyId: string): CallInfoHandle | undefined {
    return this.states.has(lobbyId) ? new CallInfoHandle(this.states, lobbyId) : undefined;
  }

  runCallbacks(): void {
    for (const call of this.endedCalls.splice(0)) call.runCallbacks();
    for (const call of this.calls.values()) call.runCallbacks();
  }

  // ---- dispatches --------------------------------------------------------------------------

  onVoiceStateUpdate(state: VoiceState): void {
    const change = this.states.apply(state);
    if (change && change.kind !== 'updated') this.host.participantChanged(change.lobbyId, change.userId, change.kind === 'added');
    const call = this.calls.get(state.lobby_id);
    call?.onVoiceState(state, change?.kind);
  }

  onVoiceServerUpdate(update: VoiceServerUpdate): void {
    this.calls.get(update.lobby_id)?.onVoiceServer(update);
  }

  /** A lobby object (READY, LOBBY_CREATE/UPDATE) with its call's voice states. */
  onLobby(lobby: Lobby): void {
    const states = (lobby as Lobby & { voice_states?: VoiceState[] }).voice_states;
    if (!Array.isArray(states)) return;
    for (const change of this.states.replaceLobby(lobby.id, states)) {
      if (change.kind !== 'updated') this.host.participantChanged(change.lobbyId, change.userId, change.kind === 'added');
    }
  }

  onLobbyGone(lobbyId: string): void {
    for (const change of this.states.forgetLobby(lobbyId)) {
      if (change.kind !== 'updated') this.host.participantChanged(change.lobbyId, change.userId, change.kind === 'added');
    }
  }

  /** The Gateway is Ready again: joins that could not be sent meanwhile go out now. */
  onGatewayReady(): void {
    for (const call of this.calls.values()) call.retryJoin();
  }

  /** The Gateway session is gone: so are our calls (the server ends them too). */
  onDisconnected(): void {
    this.states.clear();
    void this.endCalls();
  }

  // ---- devices and volumes -------------------------------------------------------------------

  getInputDevices(): Promise<AudioDevice[]> {
    return this.audio.devices('audioinput');
  }

  getOutputDevices(): Promise<AudioDevice[]> {
    return this.audio.devices('audiooutput');
  }

  getCurrentInputDevice(): Promise<AudioDevice> {
    return this.audio.currentDevice('audioinput');
  }

  getCurrentOutputDevice(): Promise<AudioDevice> {
    return this.audio.currentDevice('audiooutput');
  }

  setInputDevice(deviceId: string): Promise<void> {
    return this.audio.setInputDevice(deviceId);
  }

  setOutputDevice(deviceId: string): Promise<void> {
    return this.audio.setOutputDevice(deviceId);
  }

  setDeviceChangeCallback(callback: ((inputs: AudioDevice[], outputs: AudioDevice[]) => void) | null): void {
    this.audio.setDeviceChangeCallback(callback);
  }

  /** 0-100. */
  setInputVolume(volume: number): void {
    this.inputVolume = Math.min(100, Math.max(0, Number.isFinite(volume) ? volume : 100));
    for (const call of this.calls.values()) call.applyVolumes(this.inputVolume, this.outputVolume);
  }

  getInputVolume(): number {
    return this.inputVolume;
  }

  /** 0-200. */
  setOutputVolume(volume: number): void {
    this.outputVolume = Math.min(200, Math.max(0, Number.isFinite(volume) ? volume : 100));
    for (const call of this.calls.values()) call.applyVolumes(this.inputVolume, this.outputVolume);
  }

  getOutputVolume(): number {
    return this.outputVolume;
  }

  setSelfMuteAll(mute: boolean): void {
    this.selfMuteAll = Boolean(mute);
    for (const call of this.calls.values()) call.setSelfMute(this.selfMuteAll);
  }

  getSelfMuteAll(): boolean {
    return this.selfMuteAll;
  }

  setSelfDeafAll(deaf: boolean): void {
    this.selfDeafAll = Boolean(deaf);
    for (const call of this.calls.values()) call.setSelfDeaf(this.selfDeafAll);
  }

  getSelfDeafAll(): boolean {
    return this.selfDeafAll;
  }

  // ---- audio processing (social-sdk-api.md 7.3) ----------------------------------------------

  async setEchoCancellation(on: boolean): Promise<void> {
    return this.setProcessing({ echoCancellation: checkBool(on, 'setEchoCancellation') });
  }

  async setNoiseSuppression(on: boolean): Promise<void> {
    return this.setProcessing({ noiseSuppression: checkBool(on, 'setNoiseSuppression') });
  }

  /** The Krisp switch: on turns noise suppression off and runs the noise canceller in its place. */
  async setNoiseCancellation(on: boolean): Promise<void> {
    const value = checkBool(on, 'setNoiseCancellation');
    return this.setProcessing(value ? { noiseCancellation: true, noiseSuppression: false } : { noiseCancellation: false });
  }

  async setAutomaticGainControl(on: boolean): Promise<void> {
    return this.setProcessing({ autoGainControl: checkBool(on, 'setAutomaticGainControl') });
  }

  getAudioProcessing(): AudioProcessingSettings {
    return { ...this.processing };
  }

  /** The live capture track's settings in browsers (undefined in Node or without a microphone). */
  getInputTrackSettings(): MediaTrackSettings | undefined {
    return this.audio.inputTrackSettings();
  }

  private async setProcessing(change: Partial<AudioProcessingSettings>): Promise<void> {
    this.processing = { ...this.processing, ...change };
    for (const processor of this.processors.values()) processor.setNoiseSuppression(this.nodeDenoise());
    try {
      await Promise.all([this.audio.setProcessing(this.processing), ...[...this.processors.values()].map((p) => p.ready)]);
    } catch (error) {
      // The setting is kept (the next microphone opens with it); the game learns it did not apply now.
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.error(`audio processing change not applied: ${reason}`);
      throw new ClientResultError({ type: ErrorType.Aborted, error: `the audio processing change could not be applied: ${reason}` });
    }
  }

  /** RNNoise runs in Node when either suppression switch is on. */
  private nodeDenoise(): boolean {
    return rnnoiseAvailable() && (this.processing.noiseSuppression || this.processing.noiseCancellation);
  }

  setNoAudioInputThreshold(dBFSThreshold: number): void {
    if (typeof dBFSThreshold !== 'number' || !Number.isFinite(dBFSThreshold) || dBFSThreshold < NO_INPUT_THRESHOLD_MIN || dBFSThreshold > NO_INPUT_THRESHOLD_MAX) {
      throw ClientResultError.validation(`setNoAudioInputThreshold: dBFSThreshold must be a number from ${NO_INPUT_THRESHOLD_MIN} (off) to ${NO_INPUT_THRESHOLD_MAX}`);
    }
    this.detector.thresholdDbfs = dBFSThreshold;
    this.detector.reset();
  }

  getNoAudioInputThreshold(): number {
    return this.detector.thresholdDbfs;
  }

  /**
   * The preference for the platform's Opus (WebCodecs, which browsers may run in hardware or the
   * OS) over the WASM libopus build (opusscript), per direction. Like the native SDK it only
   * counts before the first call; later it is ignored with a warning.
   */
  setOpusHardwareCoding(encode: boolean, decode: boolean): void {
    checkBool(encode, 'setOpusHardwareCoding encode');
    checkBool(decode, 'setOpusHardwareCoding decode');
    if (this.started) {
      this.logger.warn('setOpusHardwareCoding ignored: it must be called before the first call');
      return;
    }
    this.opusHardware = { encode, decode };
    this.codecPromise = undefined;
  }

  getOpusHardwareCoding(): { encode: boolean; decode: boolean } {
    return { ...this.opusHardware };
  }

  /** Deprecated in the native SDK; browsers and Node have no speakerphone route to switch to. */
  setSpeakerMode(speakerMode: boolean): boolean {
    checkBool(speakerMode, 'setSpeakerMode');
    this.logger.info('setSpeakerMode: no speakerphone route on this platform; nothing changed');
    return false;
  }

  showAudioRoutePicker(): boolean {
    return this.audio.showAudioRoutePicker();
  }

  /**
   * Kept for ported code: mobile audio sessions do not exist in browsers or Node, so there is
   * nothing for the game or the SDK to own. Only counts before the first call (warning after).
   */
  setEngineManagedAudioSession(isEngineManaged: boolean): void {
    checkBool(isEngineManaged, 'setEngineManagedAudioSession');
    if (this.started) {
      this.logger.warn('setEngineManagedAudioSession ignored: it must be called before joining any call');
      return;
    }
    this.engineManagedAudioSession = isEngineManaged;
  }

  getEngineManagedAudioSession(): boolean {
    return this.engineManagedAudioSession;
  }

  // ---- diagnostics ---------------------------------------------------------------------------

  addVoiceLogCallback(callback: LogCallback, minSeverity: LoggingSeverity): void {
    if (typeof callback !== 'function') throw ClientResultError.validation('addVoiceLogCallback: callback must be a function');
    if (!Object.values(LoggingSeverity).includes(minSeverity)) throw ClientResultError.validation('addVoiceLogCallback: minSeverity must be a LoggingSeverity');
    this.logger.add(callback, minSeverity);
  }

  /**
   * Node: the voice log goes to `<path>/social-layer-voice.log` and AEC dumps to `<path>`. Only
   * before the first call, as the native SDK (later: ignored with a warning). Browsers refuse it.
   */
  setVoiceLogDir(path: string, minSeverity: LoggingSeverity): void {
    checkLogDirArgs('setVoiceLogDir', path, minSeverity);
    if (this.started) {
      this.logger.warn('setVoiceLogDir ignored: it must be called right after constructing the Client, before any call');
      return;
    }
    this.voiceLogDir = path;
    if (!this.voiceLogFile.open(this.logger, path, 'social-layer-voice.log', minSeverity)) {
      this.logger.error('setVoiceLogDir: the voice log file could not be opened');
    }
  }

  /**
   * Records each call's captured and played audio (AecDump: a stereo WAV, microphone left,
   * playback right) from now until setAecDump(false) or the call's end. Node writes the files to
   * the voice log directory (default: the working directory); browsers offer them as downloads.
   */
  setAecDump(on: boolean): void {
    this.aecDump = checkBool(on, 'setAecDump');
    for (const [call, processor] of this.processors) this.applyDump(call, processor);
  }

  getAecDump(): boolean {
    return this.aecDump;
  }

  private applyDump(call: Call, processor: CallProcessor): void {
    if (this.aecDump && !processor.dump) {
      try {
        processor.dump = new AecDump(this.voiceLogDir, call.lobbyId, (result) =>
          this.logger.info(`AEC dump of call ${call.lobbyId} finished: ${result.path ?? result.fileName}`),
        );
      } catch (error) {
        this.logger.error(`AEC dump could not start: ${error instanceof Error ? error.message : String(error)}`);
      }
    } else if (!this.aecDump && processor.dump) {
      processor.dump.finish();
      processor.dump = undefined;
    }
  }

  private attachProcessing(call: Call, pipeline: MediaPipeline): void {
    const processor = new CallProcessor(this.detector);
    processor.setNoiseSuppression(this.nodeDenoise());
    this.processors.set(call, processor);
    this.applyDump(call, processor);
    pipeline.processor = processor;
  }

  private detachProcessing(call: Call): void {
    this.processors.get(call)?.destroy();
    this.processors.delete(call);
    if (this.processors.size === 0) this.detector.reset();
  }

  destroy(): void {
    void this.endCalls();
    for (const call of [...this.processors.keys()]) this.detachProcessing(call);
    this.audio.close();
    this.voiceLogFile.close();
  }

  // ---- internals -----------------------------------------------------------------------------

  private callHost(): CallHost {
    const manager = this;
    const host = this.host;
    return {
      get selfId() {
        return host.selfId() ?? '0';
      },
      states: this.states,
      logger: this.logger,
      queueEvents: host.queueEvents,
      secure: host.apiBase.startsWith('https:'),
      sendVoiceStateUpdate: (lobbyId, channelId, selfMute, selfDeaf) => {
        // `lobby_id` names the call a leave is for (our extension; see the voice README).
        const command: VoiceStateUpdateCommand & { lobby_id: string } = {
          guild_id: null,
          channel_id: channelId,
          self_mute: selfMute,
          self_deaf: selfDeaf,
          lobby_id: lobbyId,
        };
        return host.sendGateway(GatewayOpcode.VoiceStateUpdate, command);
      },
      voiceSocket: () => resolveVoiceSocket(this.options.webSocket ?? host.webSocket),
      codec: () => this.codec(),
      transports: (ready, events, mediaUrl) => this.transports(ready, events, mediaUrl),
      ended: (call) => {
        if (manager.calls.get(call.lobbyId) === call) manager.calls.delete(call.lobbyId);
        if (host.queueEvents) manager.endedCalls.push(call);
      },
      attachAudio: (call: Call, pipeline: MediaPipeline) => {
        this.attachProcessing(call, pipeline);
        this.audio.attach(call, pipeline);
      },
      detachAudio: (call: Call) => {
        this.detachProcessing(call);
        this.audio.detach(call);
      },
      timeouts: {
        joinMs: this.options.joinTimeoutMs ?? 10_000,
        reconnectMs: this.options.reconnectTimeoutMs ?? 30_000,
        reconnectBaseDelayMs: this.options.reconnectBaseDelayMs ?? 250,
      },
      defaults: {
        selfMute: this.selfMuteAll,
        selfDeaf: this.selfDeafAll,
        inputVolume: this.inputVolume,
        outputVolume: this.outputVolume,
      },
    };
  }

  private codec(): Promise<OpusCodecFactory> {
    if (this.options.codec) return Promise.resolve(this.options.codec);
    const { encode, decode } = this.opusHardware;
    this.codecPromise ??= encode && decode ? defaultOpusCodec() : mixedOpusCodec(encode, decode);
    return this.codecPromise;
  }

  /** Fresh transports for one connection attempt, in order of preference. */
  private transports(ready: VoiceReady, events: MediaTransportEvents, mediaUrl: string): MediaTransport[] {
    const offered = ready.transports ?? [VoiceTransport.Udp, VoiceTransport.WebSocket];
    const dgram = nodeDgram();
    const preferred =
      this.options.transports ??
      (dgram ? [VoiceTransport.Udp, VoiceTransport.WebSocket] : [VoiceTransport.WebRtc, VoiceTransport.WebSocket]);
    const out: MediaTransport[] = [];
    for (const kind of preferred) {
      if (!offered.includes(kind)) continue;
      if (kind === VoiceTransport.Udp && dgram) out.push(new UdpMediaTransport(dgram, events));
      else if (kind === VoiceTransport.WebRtc && webRtcAvailable()) out.push(new WebRtcMediaTransport(events));
      else if (kind === VoiceTransport.WebSocket) out.push(new LazyWebSocketTransport(events, mediaUrl, () => resolveVoiceSocket(this.options.webSocket ?? this.host.webSocket)));
    }
    return out;
  }
}

function checkBool(value: unknown, what: string): boolean {
  if (typeof value !== 'boolean') throw ClientResultError.validation(`${what} takes a boolean`);
  return value;
}

/** WebSocketMediaTransport whose WebSocket class is resolved when it starts. */
class LazyWebSocketTransport implements MediaTransport {
  readonly kind = VoiceTransport.WebSocket;
  private inner: WebSocketMediaTransport | undefined;
  private closed = false;

  constructor(
    private readonly events: MediaTransportEvents,
    private readonly url: string,
    private readonly ctor: () => Promise<VoiceSocketConstructor>,
  ) {}

  get open(): boolean {
    return this.inner?.open ?? false;
  }

  async prepare(): Promise<{ address: string; port: number }> {
    this.inner = new WebSocketMediaTransport(await this.ctor(), this.url, this.events);
    if (this.closed) this.inner.close();
    return this.inner.prepare();
  }

  start(description: Parameters<MediaTransport['start']>[0]): Promise<void> {
    if (!this.inner) return Promise.reject(new Error('not prepared'));
    return this.inner.start(description);
  }

  reopen(): Promise<void> {
    if (!this.inner) return Promise.reject(new Error('not prepared'));
    return this.inner.reopen();
  }

  send(packet: Uint8Array): void {
    this.inner?.send(packet);
  }

  /** Test hook: cuts the media socket. */
  cut(): void {
    this.inner?.cut();
  }

  close(): void {
    this.closed = true;
    this.inner?.close();
  }
}
