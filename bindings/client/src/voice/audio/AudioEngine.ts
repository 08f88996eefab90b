import type { Call } from '../Call.ts';
import type { MediaPipeline } from '../MediaPipeline.ts';
import { WORKLET_SOURCE } from './worklets.ts';

/** The spec's AudioDevice. */
export interface AudioDevice {
  /** The device ID (`setInputDevice`/`setOutputDevice` take it). */
  id: string;
  /** Its label, for people. */
  name: string;
  /** Whether it is the system's default device. */
  isDefault: boolean;
}

/** The ID that means "the system default device" (Client.getDefaultAudioDeviceId()). */
export const DEFAULT_AUDIO_DEVICE_ID = 'default';

type DeviceKind = 'audioinput' | 'audiooutput';

/** The capture processing switches of the Client (setEchoCancellation, ...). */
export interface AudioProcessingSettings {
  /** The browser's echo cancellation on the microphone. */
  echoCancellation: boolean;
  /** The browser's noise suppression on the microphone. */
  noiseSuppression: boolean;
  /** The native SDK's Krisp switch; browsers have no Krisp, so it asks for their noise suppression. */
  noiseCancellation: boolean;
  /** The browser's automatic gain control on the microphone. */
  autoGainControl: boolean;
}

export const DEFAULT_AUDIO_PROCESSING: AudioProcessingSettings = {
  echoCancellation: true,
  noiseSuppression: true,
  noiseCancellation: false,
  autoGainControl: true,
};

/** The getUserMedia constraints for the processing switches. */
export function processingConstraints(settings: AudioProcessingSettings): MediaTrackConstraints {
  return {
    echoCancellation: settings.echoCancellation,
    noiseSuppression: settings.noiseSuppression || settings.noiseCancellation,
    autoGainControl: settings.autoGainControl,
  };
}

interface Attached {
  pipeline: MediaPipeline;
  playback: AudioWorkletNode | undefined;
}

/** Browser audio exists when there is an AudioContext with worklets and getUserMedia. */
export function browserAudioAvailable(): boolean {
  const g = globalThis as { AudioContext?: unknown; AudioWorkletNode?: unknown; navigator?: { mediaDevices?: { getUserMedia?: unknown } } };
  return typeof g.AudioContext === 'function' && typeof g.AudioWorkletNode === 'function' && typeof g.navigator?.mediaDevices?.getUserMedia === 'function';
}

/**
 * Microphone capture and speaker playback for calls in browsers: one AudioContext at 48 kHz,
 * an AudioWorklet that cuts the microphone into 20 ms frames for every call's pipeline, and a
 * playback worklet per call fed with that call's mix. In Node it does nothing: bots use
 * startCallWithAudioCallbacks and Call.pushCapturedAudio.
 */
export class AudioEngine {
  private context: AudioContext | undefined;
  private ready: Promise<AudioContext> | undefined;
  private stream: MediaStream | undefined;
  private source: MediaStreamAudioSourceNode | undefined;
  private capture: AudioWorkletNode | undefined;
  private output: GainNode | undefined;
  private readonly attached = new Map<Call, Attached>();
  private inputDeviceId = DEFAULT_AUDIO_DEVICE_ID;
  private outputDeviceId = DEFAULT_AUDIO_DEVICE_ID;
  private deviceChange: ((inputs: AudioDevice[], outputs: AudioDevice[]) => void) | null = null;
  private deviceListener: (() => void) | undefined;
  private processing: AudioProcessingSettings = { ...DEFAULT_AUDIO_PROCESSING };
  /** Serialises microphone changes (device, processing) so two never race. */
  private micChange: Promise<void> = Promise.resolve();

  attach(call: Call, pipeline: MediaPipeline): void {
    if (!browserAudioAvailable()) return;
    // A microphone must not lag: hold at most 100 ms of it.
    pipeline.setMaxCaptureFrames(5);
    const entry: Attached = { pipeline, playback: undefined };
    this.attached.set(call, entry);
    void this.start()
      .then(async (context) => {
        if (this.attached.get(call) !== entry) return;
        const playback = new AudioWorkletNode(context, 'sl-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [2] });
        playback.connect(this.output!);
        playback.port.onmessage = (event: MessageEvent<number>) => (pipeline.playbackLevel = event.data);
        entry.playback = playback;
        pipeline.onMixed = (mixed) => {
          const frame = new Float32Array(mixed.length);
          for (let i = 0; i < mixed.length; i++) frame[i] = mixed[i]! / 32768;
          playback.port.postMessage(frame, [frame.buffer]);
        };
        await this.openMicrophone();
      })
      .catch(() => {
        // No microphone permission or no device: the call still receives.
      });
  }

  detach(call: Call): void {
    const entry = this.attached.get(call);
    if (!entry) return;
    this.attached.delete(call);
    entry.pipeline.onMixed = undefined;
    entry.playback?.disconnect();
    if (this.attached.size === 0) this.stopMicrophone();
  }

  async devices(kind: DeviceKind): Promise<AudioDevice[]> {
    const media = mediaDevices();
    if (!media) return [];
    const list = await media.enumerateDevices();
    return list
      .filter((d) => d.kind === kind)
      .map((d) => ({ id: d.deviceId, name: d.label || (kind === 'audioinput' ? 'Microphone' : 'Speaker'), isDefault: d.deviceId === DEFAULT_AUDIO_DEVICE_ID }));
  }

  async currentDevice(kind: DeviceKind): Promise<AudioDevice> {
    const id = kind === 'audioinput' ? this.inputDeviceId : this.outputDeviceId;
    const found = (await this.devices(kind)).find((d) => d.id === id);
    return found ?? { id, name: id === DEFAULT_AUDIO_DEVICE_ID ? 'Default' : id, isDefault: id === DEFAULT_AUDIO_DEVICE_ID };
  }

  async setInputDevice(deviceId: string): Promise<void> {
    this.inputDeviceId = deviceId || DEFAULT_AUDIO_DEVICE_ID;
    if (this.stream) {
      this.stopMicrophone();
      await this.openMicrophone();
    }
  }

  /**
   * New capture processing, applied to the live microphone track without touching the calls:
   * first by applyConstraints on the track; where the browser keeps the old processing on a
   * live track (its getSettings() still shows it), by opening the microphone again with the new
   * constraints and swapping it in under the same capture worklet.
   */
  setProcessing(settings: AudioProcessingSettings): Promise<void> {
    this.processing = { ...settings };
    const change = this.micChange.then(async () => {
      const track = this.stream?.getAudioTracks()[0];
      if (!track) return;
      const wanted = processingConstraints(this.processing);
      try {
        await track.applyConstraints({ ...track.getConstraints(), ...wanted });
      } catch {
        // Refused outright: reopening below gets the same result.
      }
      if (this.stream?.getAudioTracks()[0] !== track || settingsMatch(track.getSettings(), wanted)) return;
      await this.reopenMicrophone();
    });
    this.micChange = change.catch(() => undefined);
    return change;
  }

  /** The live capture track's settings (undefined without a microphone). */
  inputTrackSettings(): MediaTrackSettings | undefined {
    return this.stream?.getAudioTracks()[0]?.getSettings();
  }

  /**
   * showAudioRoutePicker: the browser's output picker (`selectAudioOutput`) where it exists;
   * the chosen device becomes the output. False when the browser has none.
   */
  showAudioRoutePicker(): boolean {
    const media = mediaDevices() as (MediaDevices & { selectAudioOutput?: () => Promise<{ deviceId: string }> }) | undefined;
    if (typeof media?.selectAudioOutput !== 'function') return false;
    void media
      .selectAudioOutput()
      .then((device) => this.setOutputDevice(device.deviceId))
      .catch(() => undefined);
    return true;
  }

  async setOutputDevice(deviceId: string): Promise<void> {
    this.outputDeviceId = deviceId || DEFAULT_AUDIO_DEVICE_ID;
    const context = this.context as (AudioContext & { setSinkId?: (id: string) => Promise<void> }) | undefined;
    if (context?.setSinkId) await context.setSinkId(this.outputDeviceId === DEFAULT_AUDIO_DEVICE_ID ? '' : this.outputDeviceId);
  }

  setDeviceChangeCallback(callback: ((inputs: AudioDevice[], outputs: AudioDevice[]) => void) | null): void {
    this.deviceChange = callback;
    const media = mediaDevices();
    if (!media) return;
    if (this.deviceListener) media.removeEventListener('devicechange', this.deviceListener);
    this.deviceListener = undefined;
    if (!callback) return;
    this.deviceListener = () => {
      void Promise.all([this.devices('audioinput'), this.devices('audiooutput')]).then(([inputs, outputs]) => this.deviceChange?.(inputs, outputs));
    };
    media.addEventListener('devicechange', this.deviceListener);
  }

  close(): void {
    for (const call of [...this.attached.keys()]) this.detach(call);
    this.setDeviceChangeCallback(null);
    void this.context?.close().catch(() => undefined);
    this.context = undefined;
    this.ready = undefined;
  }

  private start(): Promise<AudioContext> {
    this.ready ??= (async () => {
      const context = new AudioContext({ sampleRate: 48_000, latencyHint: 'interactive' });
      const url = URL.createObjectURL(new Blob([WORKLET_SOURCE], { type: 'application/javascript' }));
      try {
        await context.audioWorklet.addModule(url);
      } finally {
        URL.revokeObjectURL(url);
      }
      this.output = context.createGain();
      this.output.connect(context.destination);
      this.context = context;
      if (this.outputDeviceId !== DEFAULT_AUDIO_DEVICE_ID) await this.setOutputDevice(this.outputDeviceId).catch(() => undefined);
      if (context.state === 'suspended') await context.resume().catch(() => undefined);
      return context;
    })();
    return this.ready;
  }

  private async openMicrophone(): Promise<void> {
    const context = this.context;
    const media = mediaDevices();
    if (!context || !media || this.stream) return;
    const deviceId = this.inputDeviceId === DEFAULT_AUDIO_DEVICE_ID ? undefined : { exact: this.inputDeviceId };
    const stream = await media.getUserMedia({
      audio: { deviceId, channelCount: 1, sampleRate: 48_000, ...processingConstraints(this.processing) },
    });
    if (this.attached.size === 0) {
      for (const track of stream.getTracks()) track.stop();
      return;
    }
    this.stream = stream;
    this.source = context.createMediaStreamSource(stream);
    const capture = new AudioWorkletNode(context, 'sl-capture', { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit' });
    capture.port.onmessage = (event: MessageEvent<Float32Array>) => {
      for (const { pipeline } of this.attached.values()) pipeline.pushCapturedAudio(event.data);
    };
    this.source.connect(capture);
    this.capture = capture;
  }

  /**
   * Opens a new track with the current settings and swaps it in; the capture worklet (and so
   * every call) stays. The old track is stopped first: Chromium hands a second track of the same
   * device the processing of the one still open, so both must not be live at once.
   */
  private async reopenMicrophone(): Promise<void> {
    const context = this.context;
    const media = mediaDevices();
    const capture = this.capture;
    if (!context || !media || !capture || !this.stream) return;
    this.source?.disconnect();
    for (const track of this.stream.getTracks()) track.stop();
    this.source = undefined;
    const deviceId = this.inputDeviceId === DEFAULT_AUDIO_DEVICE_ID ? undefined : { exact: this.inputDeviceId };
    const stream = await media.getUserMedia({
      audio: { deviceId, channelCount: 1, sampleRate: 48_000, ...processingConstraints(this.processing) },
    });
    if (this.capture !== capture) {
      for (const track of stream.getTracks()) track.stop();
      return;
    }
    const source = context.createMediaStreamSource(stream);
    source.connect(capture);
    this.source = source;
    this.stream = stream;
  }

  private stopMicrophone(): void {
    this.capture?.disconnect();
    this.source?.disconnect();
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.capture = undefined;
    this.source = undefined;
    this.stream = undefined;
  }
}

function settingsMatch(settings: MediaTrackSettings, wanted: MediaTrackConstraints): boolean {
  const s = settings as Record<string, unknown>;
  return (['echoCancellation', 'noiseSuppression', 'autoGainControl'] as const).every((key) => s[key] === undefined || s[key] === wanted[key]);
}

function mediaDevices(): MediaDevices | undefined {
  return (globalThis as { navigator?: { mediaDevices?: MediaDevices } }).navigator?.mediaDevices;
}
