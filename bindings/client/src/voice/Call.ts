import type { VoiceServerUpdate, VoiceState } from '@social-layer/protocol';
import { EventHub } from '../EventHub.ts';
import type { Logger } from '../Logger.ts';
import type { Unsubscribe } from '../events.ts';
import type { VADThresholdSettings } from './CaptureGate.ts';
import type { OpusCodecFactory } from './codec/OpusCodec.ts';
import { AudioModeType, CallError, CallStatus, callErrorToString, callStatusToString } from './enums.ts';
import { MediaPipeline, type PipelineTaps, type UserAudioCapturedCallback, type UserAudioReceivedCallback } from './MediaPipeline.ts';
import type { MediaTransport, MediaTransportEvents, VoiceReady } from './transports/MediaTransport.ts';
import type { VoiceSocketConstructor } from './transports/voiceSocket.ts';
import { VoiceConnection, VoiceConnectionStatus, type VoiceConnectionEnd } from './VoiceConnection.ts';
import { VoiceStateHandle } from './VoiceStateHandle.ts';
import type { VoiceStates } from './VoiceStates.ts';

/** Events of one Call (the spec's Call::Set...Callback slots, as listeners). */
export interface CallEvents {
  /** `errorDetail` is the voice gateway close code when one caused the change, else 0. */
  statusChanged: (status: CallStatus, error: CallError, errorDetail: number) => void;
  /** A participant joined (`added` true) or left the call. */
  participantChanged: (userId: string, added: boolean) => void;
  /** A participant's VoiceStateHandle changed (self-mute, self-deaf). */
  voiceStateChanged: (userId: string) => void;
  /** A participant started or stopped being heard. */
  speakingStatusChanged: (userId: string, isPlayingSound: boolean) => void;
}

/** What a Call needs from the client around it (VoiceManager). */
export interface CallHost {
  readonly selfId: string;
  readonly states: VoiceStates;
  readonly logger: Logger;
  readonly queueEvents: boolean;
  /** `https` API base: voice sockets use wss. */
  readonly secure: boolean;
  /** Main Gateway op 4; false when the Gateway is not connected. */
  sendVoiceStateUpdate(lobbyId: string, channelId: string | null, selfMute: boolean, selfDeaf: boolean): boolean;
  voiceSocket(): Promise<VoiceSocketConstructor>;
  codec(): Promise<OpusCodecFactory>;
  transports(ready: VoiceReady, events: MediaTransportEvents, mediaUrl: string): MediaTransport[];
  /** The call reached Disconnected: forget it. */
  ended(call: Call): void;
  /** The pipeline exists: attach capture and playback (browsers). */
  attachAudio(call: Call, pipeline: MediaPipeline): void;
  detachAudio(call: Call): void;
  readonly timeouts: { joinMs: number; reconnectMs: number; reconnectBaseDelayMs: number };
  readonly defaults: { selfMute: boolean; selfDeaf: boolean; inputVolume: number; outputVolume: number };
}

const PARTICIPANT_VOLUME_DEFAULT = 100;

/**
 * One lobby call (the spec's `Call`): status machine Disconnected -> Joining (main Gateway op 4,
 * waiting for VOICE_STATE_UPDATE and VOICE_SERVER_UPDATE) -> Connecting (voice gateway) ->
 * SignalingConnected (Ready) -> Connected (transport open); a cut goes to Reconnecting and back
 * without the game doing anything; endCall goes through Disconnecting. All changes go through
 * `transition`. Audio settings (mute, deafen, PTT/VAD, volumes) apply at once and survive
 * reconnects.
 */
export class Call {
  /** The `CallStatus` values, as `Call.Status` (the spec's `Call::Status`). */
  static readonly Status = CallStatus;
  /** The `CallError` values, as `Call.Error` (the spec's `Call::Error`). */
  static readonly Error = CallError;

  private current: CallStatus = CallStatus.Disconnected;
  private readonly events: EventHub<CallEvents>;
  private readonly slots = new Map<keyof CallEvents, Unsubscribe>();
  private pipeline: MediaPipeline | undefined;
  private pipelineLoading: Promise<MediaPipeline> | undefined;
  private connection: VoiceConnection | undefined;
  private sessionId: string | undefined;
  private server: VoiceServerUpdate | undefined;
  private joinTimer: ReturnType<typeof setTimeout> | undefined;
  private selfMute: boolean;
  private selfDeaf: boolean;
  private audioMode: AudioModeType = AudioModeType.MODE_VAD;
  private pttActive = false;
  private pttReleaseDelay = 0;
  private vad: VADThresholdSettings = { vadThreshold: -60, automatic: false };
  private readonly volumes = new Map<string, number>();
  private readonly localMutes = new Set<string>();
  private readonly speaking = new Set<string>();
  private rejoining = false;
  /** The last op 4 join went out (false while the Gateway was down). */
  private joinSent = false;
  private valid = true;
  private taps: PipelineTaps = {};

  /** @internal Created by Client.startCall / startCallWithAudioCallbacks. */
  constructor(
    private readonly host: CallHost,
    /** The lobby whose call this is. */
    readonly lobbyId: string,
    private readonly audioCallbacks: { onReceived?: UserAudioReceivedCallback; onCaptured?: UserAudioCapturedCallback } = {},
  ) {
    this.events = new EventHub<CallEvents>(host.queueEvents, (event, error) =>
      host.logger.error(`a call ${event} listener threw: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.selfMute = host.defaults.selfMute;
    this.selfDeaf = host.defaults.selfDeaf;
  }

  /** The name of a `CallStatus` value (spec `Call::StatusToString`). */
  static statusToString(status: CallStatus): string {
    return callStatusToString(status);
  }

  /** The name of a `CallError` value (spec `Call::ErrorToString`). */
  static errorToString(error: CallError): string {
    return callErrorToString(error);
  }

  // ---- state ---------------------------------------------------------------------------------

  /** The spec's `operator bool`: false once the call has ended. */
  isValid(): boolean {
    return this.valid;
  }

  /** Where the call is: Disconnected, Joining, Connecting, SignalingConnected, Connected, Reconnecting, Disconnecting. */
  getStatus(): CallStatus {
    return this.current;
  }

  /** The lobby ID (a lobby call's channel is the lobby). */
  getChannelId(): string {
    return this.lobbyId;
  }

  /** The header documents this as the lobby ID too. */
  getGuildId(): string {
    return this.lobbyId;
  }

  /** Everyone in the call, ourselves included. */
  getParticipants(): string[] {
    return this.host.states.participants(this.lobbyId);
  }

  /** A participant's voice state (muted, deafened), or undefined when they are not in the call. */
  getVoiceStateHandle(userId: string): VoiceStateHandle | undefined {
    return this.host.states.get(this.lobbyId, userId) ? new VoiceStateHandle(this.host.states, this.lobbyId, userId) : undefined;
  }

  // ---- audio settings --------------------------------------------------------------------------

  /** Mutes or unmutes this user's microphone in this call. */
  setSelfMute(mute: boolean): void {
    this.selfMute = Boolean(mute);
    this.pipeline?.setSelfMute(this.selfMute);
    this.announceFlags();
  }

  /** Whether this user's microphone is muted in this call. */
  getSelfMute(): boolean {
    return this.selfMute;
  }

  /** Hear nobody, and nobody hears you. */
  setSelfDeaf(deaf: boolean): void {
    this.selfDeaf = Boolean(deaf);
    this.pipeline?.setSelfDeaf(this.selfDeaf);
    this.announceFlags();
  }

  /** Whether this user is deafened in this call. */
  getSelfDeaf(): boolean {
    return this.selfDeaf;
  }

  /** Sets how the microphone is gated: push-to-talk or voice activity. */
  setAudioMode(mode: AudioModeType): void {
    if (mode !== AudioModeType.MODE_VAD && mode !== AudioModeType.MODE_PTT) return;
    this.audioMode = mode;
    if (this.pipeline) this.pipeline.gate.mode = mode;
  }

  /** How the microphone is gated: push-to-talk or voice activity. */
  getAudioMode(): AudioModeType {
    return this.audioMode;
  }

  /** The game owns the key: call with true on press, false on release. */
  setPTTActive(active: boolean): void {
    this.pttActive = Boolean(active);
    this.pipeline?.gate.setPTTActive(this.pttActive, nowMs());
  }

  /** Whether push-to-talk is held now. */
  getPTTActive(): boolean {
    return this.pttActive;
  }

  /** How long audio keeps going after the key is released, in ms (default 0). */
  setPTTReleaseDelay(releaseDelayMs: number): void {
    this.pttReleaseDelay = Math.max(0, Math.floor(Number(releaseDelayMs) || 0));
    if (this.pipeline) this.pipeline.gate.pttReleaseDelayMs = this.pttReleaseDelay;
  }

  /** How long (ms) the microphone stays open after push-to-talk is released. */
  getPTTReleaseDelay(): number {
    return this.pttReleaseDelay;
  }

  /** Voice activity threshold in dBFS (-100..0, default -60), or automatic (follows the noise floor). */
  setVADThreshold(automatic: boolean, threshold: number): void {
    const clamped = Math.min(0, Math.max(-100, Number.isFinite(threshold) ? threshold : -60));
    this.vad = { vadThreshold: clamped, automatic: Boolean(automatic) };
    this.pipeline?.gate.setVADThreshold(this.vad.automatic, clamped);
  }

  /** The voice-activity threshold settings (automatic, or a level in dB). */
  getVADThreshold(): VADThresholdSettings {
    return { ...this.vad };
  }

  /** Local only: 0-200, 100 = as sent. */
  setParticipantVolume(userId: string, volume: number): void {
    const v = Math.min(200, Math.max(0, Number.isFinite(volume) ? volume : PARTICIPANT_VOLUME_DEFAULT));
    this.volumes.set(userId, v);
    this.pipeline?.setParticipantVolume(userId, v);
  }

  /** How loud a participant is played, 0-200 (100 is as sent). */
  getParticipantVolume(userId: string): number {
    return this.volumes.get(userId) ?? PARTICIPANT_VOLUME_DEFAULT;
  }

  /** Local only: stop hearing `userId` in this call. */
  setLocalMute(userId: string, mute: boolean): void {
    if (mute) this.localMutes.add(userId);
    else this.localMutes.delete(userId);
    this.pipeline?.setLocalMute(userId, Boolean(mute));
  }

  /** Whether a participant is muted for this user only. */
  getLocalMute(userId: string): boolean {
    return this.localMutes.has(userId);
  }

  /**
   * Node (bots, tests) and custom capture: 48 kHz mono PCM to send, as Int16 samples or floats
   * in [-1, 1], any length. It is sent at real time (20 ms per frame) through the same gate
   * (mute, VAD or push-to-talk) as a microphone; up to 60 s is queued ahead.
   */
  pushCapturedAudio(samples: Int16Array | Float32Array): void {
    this.pipeline?.pushCapturedAudio(samples);
    if (!this.pipeline) void this.pipelineLoading?.then((p) => p.pushCapturedAudio(samples));
  }

  /** Captured audio waiting to be sent, in 20 ms frames. */
  getCapturedFramesQueued(): number {
    return this.pipeline?.capturedFramesQueued ?? 0;
  }

  // ---- events ------------------------------------------------------------------------------

  /** Listens to a call event; returns a function that removes the listener. */
  on<K extends keyof CallEvents>(event: K, listener: CallEvents[K]): Unsubscribe {
    return this.events.on(event, listener);
  }

  /** Spec shim: one listener for `statusChanged` (null removes it); `on` allows several. */
  setStatusChangedCallback(callback: CallEvents['statusChanged'] | null): void {
    this.setSlot('statusChanged', callback);
  }

  /** Spec shim: one listener for `participantChanged` (null removes it). */
  setParticipantChangedCallback(callback: CallEvents['participantChanged'] | null): void {
    this.setSlot('participantChanged', callback);
  }

  /** Spec shim: one listener for `speakingStatusChanged` (null removes it). */
  setSpeakingStatusChangedCallback(callback: CallEvents['speakingStatusChanged'] | null): void {
    this.setSlot('speakingStatusChanged', callback);
  }

  /** Spec shim: one listener for `voiceStateChanged` (null removes it). */
  setOnVoiceStateChangedCallback(callback: CallEvents['voiceStateChanged'] | null): void {
    this.setSlot('voiceStateChanged', callback);
  }

  /** RMS level (0..1) of what this call played on the speakers over the last ~100 ms (browsers). */
  getPlaybackLevel(): number {
    return this.pipeline?.playbackLevel ?? 0;
  }

  /** Whether `userId` is playing sound now (what speakingStatusChanged last said). */
  isSpeaking(userId: string): boolean {
    return this.speaking.has(userId);
  }

  /** @internal With queueEvents, the Client's runCallbacks() delivers call events too. */
  runCallbacks(): void {
    this.events.runCallbacks();
  }

  private setSlot<K extends keyof CallEvents>(event: K, callback: CallEvents[K] | null): void {
    this.slots.get(event)?.();
    this.slots.delete(event);
    if (callback) this.slots.set(event, this.events.on(event, callback));
  }

  // ---- diagnostics (tests) -------------------------------------------------------------------

  /** @internal Media counters of this call. */
  get mediaStats(): MediaPipeline['stats'] | undefined {
    return this.pipeline?.stats;
  }

  /** @internal Taps on encoded and received frames (E2EE tests). */
  setMediaTaps(taps: PipelineTaps): void {
    this.taps = taps;
    if (this.pipeline) this.pipeline.taps = taps;
  }

  /** @internal The voice connection (tests cut its socket or transport). */
  get voiceConnection(): VoiceConnection | undefined {
    return this.connection;
  }

  /** @internal True when DAVE has group keys (media can be sent). */
  isE2eeReady(): boolean {
    return this.connection?.daveReady ?? false;
  }

  // ---- lifecycle (driven by the client) ------------------------------------------------------

  /** @internal */
  start(): void {
    if (this.current !== CallStatus.Disconnected || !this.valid) return;
    this.transition(CallStatus.Joining);
    this.pipelineLoading = this.createPipeline();
    this.pipelineLoading.catch((error: unknown) => {
      this.host.logger.error(`voice pipeline failed: ${error instanceof Error ? error.message : String(error)}`);
      this.finish(CallError.VoiceConnectionFailed, 0);
    });
    this.join();
  }

  private join(): void {
    this.sessionId = undefined;
    this.server = undefined;
    this.joinSent = this.host.sendVoiceStateUpdate(this.lobbyId, this.lobbyId, this.selfMute, this.selfDeaf);
    if (!this.joinSent) this.host.logger.warn('joining a call: the Gateway is not connected; the join goes out when it is');
    if (this.joinTimer !== undefined) clearTimeout(this.joinTimer);
    this.joinTimer = setTimeout(() => {
      this.joinTimer = undefined;
      if (!this.connection) this.finish(CallError.JoinTimeout, 0);
    }, this.host.timeouts.joinMs);
  }

  /** @internal The Gateway is back: a join that could not be sent goes out now (the join timer keeps running). */
  retryJoin(): void {
    if (this.joinSent || !this.valid || (this.current !== CallStatus.Joining && !this.rejoining)) return;
    this.joinSent = this.host.sendVoiceStateUpdate(this.lobbyId, this.lobbyId, this.selfMute, this.selfDeaf);
  }

  /** @internal Leaves the call: Disconnecting, op 4 leave, voice socket closed, Disconnected. */
  end(): Promise<void> {
    if (this.current === CallStatus.Disconnected) return Promise.resolve();
    this.transition(CallStatus.Disconnecting);
    this.host.sendVoiceStateUpdate(this.lobbyId, null, this.selfMute, this.selfDeaf);
    this.finish(CallError.None, 0);
    return Promise.resolve();
  }

  /** @internal VOICE_STATE_UPDATE for this lobby. */
  onVoiceState(state: VoiceState, change: 'added' | 'removed' | 'updated' | undefined): void {
    if (state.user_id === this.host.selfId) {
      if (state.error_code !== undefined) {
        if (this.current === CallStatus.Joining) this.finish(CallError.Forbidden, state.error_code);
        return;
      }
      if (state.channel_id === this.lobbyId) {
        this.sessionId = state.session_id;
        this.maybeConnect();
      } else if (state.channel_id === null && !this.rejoining && this.current !== CallStatus.Joining && this.current !== CallStatus.Disconnecting) {
        // Removed from the call by the server (left the lobby, Gateway session ended).
        this.finish(CallError.SignalingUnexpectedClose, 0);
        return;
      }
    }
    if (change === 'added' || change === 'removed') {
      if (state.user_id !== this.host.selfId && change === 'removed') this.pipeline?.removeUser(state.user_id);
      this.events.emit('participantChanged', state.user_id, change === 'added');
    } else if (change === 'updated') this.events.emit('voiceStateChanged', state.user_id);
  }

  /** @internal VOICE_SERVER_UPDATE for this lobby. */
  onVoiceServer(update: VoiceServerUpdate): void {
    const moved = this.connection !== undefined && this.server !== undefined && update.token !== this.server.token;
    this.server = update;
    if (moved) {
      // A new token while connected or resuming: the call moved to another node (its owner died,
      // issue 18) or our voice seat is gone. The old voice session cannot come back; connect anew
      // to the endpoint given (new voice session, new MLS group), through Reconnecting.
      this.host.logger.info(`call ${this.lobbyId}: new voice server ${update.endpoint}: reconnecting`);
      const old = this.connection;
      this.connection = undefined;
      old?.close();
      this.transition(CallStatus.Reconnecting);
    }
    this.maybeConnect();
  }

  private async createPipeline(): Promise<MediaPipeline> {
    const codec = await this.host.codec();
    const pipeline = await MediaPipeline.create({
      codec,
      selfId: this.host.selfId,
      host: {
        sendPacket: (packet) => this.connection?.mediaTransport?.send(packet),
        speaking: (speaking) => this.connection?.setSpeaking(speaking),
        playing: (userId, playing) => this.onPlaying(userId, playing),
      },
    });
    if (!this.valid) {
      pipeline.destroy();
      return pipeline;
    }
    pipeline.onReceived = this.audioCallbacks.onReceived;
    pipeline.onCaptured = this.audioCallbacks.onCaptured;
    pipeline.onError = (error) => this.host.logger.warn(`voice media: ${error instanceof Error ? error.message : String(error)}`);
    pipeline.taps = this.taps;
    pipeline.setSelfMute(this.selfMute);
    pipeline.setSelfDeaf(this.selfDeaf);
    pipeline.gate.mode = this.audioMode;
    pipeline.gate.setPTTActive(this.pttActive, nowMs());
    pipeline.gate.pttReleaseDelayMs = this.pttReleaseDelay;
    pipeline.gate.setVADThreshold(this.vad.automatic, this.vad.vadThreshold);
    pipeline.setInputVolume(this.host.defaults.inputVolume);
    pipeline.setOutputVolume(this.host.defaults.outputVolume);
    for (const [userId, volume] of this.volumes) pipeline.setParticipantVolume(userId, volume);
    for (const userId of this.localMutes) pipeline.setLocalMute(userId, true);
    this.pipeline = pipeline;
    pipeline.start();
    this.host.attachAudio(this, pipeline);
    this.maybeConnect();
    return pipeline;
  }

  /** @internal The client's input/output volume changed. */
  applyVolumes(inputVolume: number, outputVolume: number): void {
    this.pipeline?.setInputVolume(inputVolume);
    this.pipeline?.setOutputVolume(outputVolume);
  }

  private maybeConnect(): void {
    if (this.connection || !this.pipeline || !this.sessionId || !this.server || !this.valid) return;
    if (this.current !== CallStatus.Joining && this.current !== CallStatus.Reconnecting) return;
    if (this.joinTimer !== undefined) clearTimeout(this.joinTimer);
    this.joinTimer = undefined;
    const server = this.server;
    const sessionId = this.sessionId;
    this.rejoining = false;
    // A new voice session means a new MLS group: nothing is sent until it has keys.
    this.pipeline.keys.setOwnRatchet(undefined);
    void this.host.voiceSocket().then((webSocket) => {
      if (this.connection || !this.pipeline || !this.valid || this.server !== server) return;
      const connection = new VoiceConnection(
        { lobbyId: this.lobbyId, userId: this.host.selfId, sessionId, token: server.token, endpoint: server.endpoint, secure: this.host.secure },
        this.pipeline,
        {
          statusChanged: (_previous, next) => {
            if (this.connection === connection) this.onConnectionStatus(next);
          },
          ended: (end) => {
            if (this.connection === connection) this.onConnectionEnded(end);
          },
          clientsConnected: () => {},
          clientDisconnected: () => {},
          transports: (ready, events, mediaUrl) => this.host.transports(ready, events, mediaUrl),
        },
        this.host.logger,
        {
          webSocket,
          reconnectTimeoutMs: this.host.timeouts.reconnectMs,
          reconnectBaseDelayMs: this.host.timeouts.reconnectBaseDelayMs,
        },
      );
      this.connection = connection;
      connection.start();
    });
  }

  private onConnectionStatus(next: VoiceConnectionStatus): void {
    switch (next) {
      case VoiceConnectionStatus.Connecting:
        if (this.current === CallStatus.Joining) this.transition(CallStatus.Connecting);
        return;
      case VoiceConnectionStatus.Signaling:
        if (this.current !== CallStatus.Reconnecting) this.transition(CallStatus.SignalingConnected);
        return;
      case VoiceConnectionStatus.Connected:
        this.transition(CallStatus.Connected);
        return;
      case VoiceConnectionStatus.Reconnecting:
        this.transition(CallStatus.Reconnecting);
        return;
    }
  }

  private onConnectionEnded(end: VoiceConnectionEnd): void {
    this.connection = undefined;
    if (this.current === CallStatus.Disconnecting || this.current === CallStatus.Disconnected) return;
    if (end.rejoinable && !this.rejoining && this.current !== CallStatus.Joining) {
      // The voice session is gone but we are still in the call: leave and join again for a
      // fresh token (the server gives one only on a new join).
      this.host.logger.info(`voice session lost (${end.reason}): joining again`);
      this.rejoining = true;
      this.transition(CallStatus.Reconnecting);
      this.host.sendVoiceStateUpdate(this.lobbyId, null, this.selfMute, this.selfDeaf);
      this.join();
      return;
    }
    const error = end.beforeReady
      ? end.code === 4004
        ? CallError.Forbidden
        : CallError.SignalingConnectionFailed
      : end.transportFailed
        ? CallError.VoiceConnectionFailed
        : CallError.SignalingUnexpectedClose;
    this.host.sendVoiceStateUpdate(this.lobbyId, null, this.selfMute, this.selfDeaf);
    this.finish(error, end.code);
  }

  private onPlaying(userId: string, playing: boolean): void {
    if (playing === this.speaking.has(userId)) return;
    if (playing) this.speaking.add(userId);
    else this.speaking.delete(userId);
    this.events.emit('speakingStatusChanged', userId, playing);
  }

  private announceFlags(): void {
    if (this.current === CallStatus.Disconnected || this.current === CallStatus.Disconnecting) return;
    this.host.sendVoiceStateUpdate(this.lobbyId, this.lobbyId, this.selfMute, this.selfDeaf);
  }

  /** Ends in Disconnected with `error`; the Call becomes invalid. */
  private finish(error: CallError, detail: number): void {
    if (!this.valid) return;
    this.valid = false;
    if (this.joinTimer !== undefined) clearTimeout(this.joinTimer);
    this.joinTimer = undefined;
    const connection = this.connection;
    this.connection = undefined;
    connection?.close();
    this.host.detachAudio(this);
    for (const userId of [...this.speaking]) this.onPlaying(userId, false);
    this.pipeline?.destroy();
    this.transition(CallStatus.Disconnected, error, detail);
    this.host.ended(this);
  }

  private transition(status: CallStatus, error: CallError = CallError.None, detail = 0): void {
    if (status === this.current) return;
    const previous = this.current;
    this.current = status;
    this.host.logger.info(`call ${this.lobbyId}: ${callStatusToString(previous)} -> ${callStatusToString(status)} (${callErrorToString(error)} ${detail})`);
    this.events.emit('statusChanged', status, error, detail);
  }
}

function nowMs(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
