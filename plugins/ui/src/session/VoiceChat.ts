import { CallStatus, type Call, type Client } from '@social-layer/client';
import { PushToTalkKey } from '../PushToTalkKey.ts';

/** Options of the session's voice chat (`GameSessionOptions.voice`). */
export interface VoiceChatOptions {
  /** The push-to-talk key (`KeyboardEvent.code`). Default 'KeyV'. */
  pushToTalkKey?: string;
}

type SpeakingListener = (userId: string, speaking: boolean) => void;
type ChangeListener = () => void;

/**
 * The lobby's voice chat with push-to-talk: `join()` starts the lobby's call (call it from a
 * click: browsers want a user gesture before audio plays), the key is held to talk, and
 * `onSpeaking` tells the game whose avatar to light up. Every step is one Client or Call call;
 * the game keeps only its drawing.
 */
export class VoiceChat {
  /** The key held to talk (a `KeyboardEvent.code`, `KeyV` unless set). */
  readonly pushToTalkKey: string;
  readonly #client: Pick<Client, 'startCall' | 'endCall'>;
  readonly #lobbyId: string;
  readonly #speaking = new Set<string>();
  readonly #speakingListeners = new Set<SpeakingListener>();
  readonly #changeListeners = new Set<ChangeListener>();
  readonly #off: (() => void)[] = [];
  #call: Call | undefined;
  #ptt: PushToTalkKey | undefined;
  /** Push-to-talk is held by the key, the on-screen button, or both: either keeps the microphone open. */
  #keyHeld = false;
  #buttonHeld = false;

  constructor(client: Pick<Client, 'startCall' | 'endCall'>, lobbyId: string, options: VoiceChatOptions = {}) {
    this.#client = client;
    this.#lobbyId = lobbyId;
    this.pushToTalkKey = options.pushToTalkKey ?? 'KeyV';
  }

  /** The call while joined. */
  get call(): Call | undefined {
    return this.#call;
  }

  /** The call's status, or undefined when not joined. */
  get status(): CallStatus | undefined {
    return this.#call?.getStatus();
  }

  /** Whether `userId` is heard now (speakingStatusChanged). */
  isSpeaking(userId: string): boolean {
    return this.#speaking.has(userId);
  }

  /** Called when someone starts or stops being heard; leaving the call turns everyone off. */
  onSpeaking(listener: SpeakingListener): () => void {
    this.#speakingListeners.add(listener);
    return () => this.#speakingListeners.delete(listener);
  }

  /** Called when the call starts, changes status or ends (for a button or a hint). */
  onChange(listener: ChangeListener): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** Starts the lobby's call (or returns the one running) with push-to-talk on the key; undefined when no call can start. */
  join(): Call | undefined {
    if (this.#call) return this.#call;
    const call = this.#client.startCall(this.#lobbyId);
    if (!call) return undefined;
    this.#call = call;
    this.#ptt = new PushToTalkKey(
      {
        setAudioMode: (mode) => call.setAudioMode(mode as Parameters<Call['setAudioMode']>[0]),
        setPTTActive: (active) => {
          this.#keyHeld = active;
          this.#applyTalking();
        },
      },
      { code: this.pushToTalkKey },
    );
    this.#off.push(
      call.on('speakingStatusChanged', (userId, speaking) => this.#setSpeaking(userId, speaking)),
      call.on('statusChanged', (status) => {
        if (status === CallStatus.Disconnected) this.#cleanUp();
        this.#changed();
      }),
    );
    this.#changed();
    return call;
  }

  /** Whether push-to-talk is held now (the key or the on-screen button). */
  get talking(): boolean {
    return this.#call !== undefined && (this.#keyHeld || this.#buttonHeld);
  }

  /**
   * Holds (true) or releases push-to-talk from something other than the key: the player bar's
   * hold-to-talk button on touch screens. The key and this hold independently; either talks.
   */
  setTalking(active: boolean): void {
    this.#buttonHeld = active;
    this.#applyTalking();
  }

  /** Leaves the call. */
  async leave(): Promise<void> {
    if (!this.#call) return;
    await this.#client.endCall(this.#lobbyId);
    this.#cleanUp();
    this.#changed();
  }

  /** Joins when out, leaves when in. */
  toggle(): Promise<void> {
    if (this.#call) return this.leave();
    this.join();
    return Promise.resolve();
  }

  /** Drops the listeners and the key; the call itself ends with `leave()` or the client. */
  destroy(): void {
    this.#cleanUp();
    this.#speakingListeners.clear();
    this.#changeListeners.clear();
  }

  #setSpeaking(userId: string, speaking: boolean): void {
    if (speaking === this.#speaking.has(userId)) return;
    if (speaking) this.#speaking.add(userId);
    else this.#speaking.delete(userId);
    for (const listener of this.#speakingListeners) listener(userId, speaking);
  }

  #applyTalking(): void {
    this.#call?.setPTTActive(this.#keyHeld || this.#buttonHeld);
  }

  #cleanUp(): void {
    for (const off of this.#off.splice(0)) off();
    this.#ptt?.destroy();
    this.#ptt = undefined;
    this.#keyHeld = false;
    this.#buttonHeld = false;
    this.#call = undefined;
    for (const userId of [...this.#speaking]) this.#setSpeaking(userId, false);
  }

  #changed(): void {
    for (const listener of this.#changeListeners) listener();
  }
}
