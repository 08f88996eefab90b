import {
  GatewayOpcode,
  VoiceTransport,
  type Lobby,
  type VoiceServerUpdate,
  type VoiceState,
  type VoiceStateUpdateCommand,
} from '@social-layer/protocol';
import type { Logger } from '../Logger.ts';
import type { WebSocketConstructor } from '../webSocket.ts';
import { AudioEngine, type AudioDevice } from './audio/AudioEngine.ts';
import { Call, type CallHost } from './Call.ts';
import { CallInfoHandle } from './CallInfoHandle.ts';
import type { OpusCodecFactory } from './codec/OpusCodec.ts';
import { defaultOpusCodec } from './codec/selectCodec.ts';
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
  readonly logger: Logger;
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

  destroy(): void {
    void this.endCalls();
    this.audio.close();
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
      logger: host.logger,
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
      attachAudio: (call: Call, pipeline: MediaPipeline) => this.audio.attach(call, pipeline),
      detachAudio: (call: Call) => this.audio.detach(call),
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
    this.codecPromise ??= defaultOpusCodec();
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
