import { ClientResultError } from './ClientResultError.ts';
import { AudioSystem, isEnumValue } from './enums.ts';

/**
 * `ClientCreateOptions` (social-sdk-api.md 1.1), the third way to construct a Client:
 * `new Client(options)`. A value class with the native getter / setter pairs; setters check
 * their argument and throw the client's ValidationError.
 *
 * Where they act here: `apiBase` is the platform's origin for REST and the Gateway; `webBase`
 * is where the platform's pages live (the device activation link, the account page), default
 * the API base. `experimentalAudioSystem`, `experimentalAndroidPreventCommsForBluetooth` and
 * `cpuAffinityMask` are accepted and kept so ported code runs unchanged, but have no effect:
 * browsers and Node have no mobile audio-session modes, no Bluetooth communications mode, and no
 * thread affinity that JavaScript can set.
 */
export class ClientCreateOptions {
  private _webBase = '';
  private _apiBase = '';
  private _audioSystem: AudioSystem = AudioSystem.Standard;
  private _preventCommsForBluetooth = false;
  private _cpuAffinityMask: bigint | undefined;

  constructor(other?: ClientCreateOptions) {
    if (other) {
      this._webBase = other._webBase;
      this._apiBase = other._apiBase;
      this._audioSystem = other._audioSystem;
      this._preventCommsForBluetooth = other._preventCommsForBluetooth;
      this._cpuAffinityMask = other._cpuAffinityMask;
    }
  }

  /** Base URL of the platform's web pages (empty: the API base). */
  webBase(): string {
    return this._webBase;
  }
  /** Sets what `webBase()` returns. */
  setWebBase(webBase: string): void {
    this._webBase = checkBaseUrl(webBase, 'webBase');
  }

  /** Base URL of the platform's API (empty: the page's origin in a browser, else the default). */
  apiBase(): string {
    return this._apiBase;
  }
  /** Sets what `apiBase()` returns. */
  setApiBase(apiBase: string): void {
    this._apiBase = checkBaseUrl(apiBase, 'apiBase');
  }

  /** Kept, no effect here (mobile audio streams only). */
  experimentalAudioSystem(): AudioSystem {
    return this._audioSystem;
  }
  /** Sets what `experimentalAudioSystem()` returns. */
  setExperimentalAudioSystem(audioSystem: AudioSystem): void {
    if (!isEnumValue(AudioSystem, audioSystem)) throw ClientResultError.validation('experimentalAudioSystem must be AudioSystem.Standard (0) or AudioSystem.Game (1)');
    this._audioSystem = audioSystem;
  }

  /** Kept, no effect here (Android only). */
  experimentalAndroidPreventCommsForBluetooth(): boolean {
    return this._preventCommsForBluetooth;
  }
  /** Sets what `experimentalAndroidPreventCommsForBluetooth()` returns. */
  setExperimentalAndroidPreventCommsForBluetooth(prevent: boolean): void {
    if (typeof prevent !== 'boolean') throw ClientResultError.validation('experimentalAndroidPreventCommsForBluetooth must be a boolean');
    this._preventCommsForBluetooth = prevent;
  }

  /** A 64-bit mask as a bigint, or undefined when unset. Kept, no effect here (a hint the native SDK may ignore too). */
  cpuAffinityMask(): bigint | undefined {
    return this._cpuAffinityMask;
  }
  /** Sets what `cpuAffinityMask()` returns. */
  setCpuAffinityMask(mask: bigint | number | undefined): void {
    if (mask === undefined) {
      this._cpuAffinityMask = undefined;
      return;
    }
    const value = typeof mask === 'number' && Number.isSafeInteger(mask) ? BigInt(mask) : mask;
    if (typeof value !== 'bigint' || value < 0n || value >= 1n << 64n) {
      throw ClientResultError.validation('cpuAffinityMask must be an unsigned 64-bit integer (a bigint, or a safe integer number)');
    }
    this._cpuAffinityMask = value;
  }

  /** A copy. */
  clone(): ClientCreateOptions {
    return new ClientCreateOptions(this);
  }
}

/** An http(s) origin with an optional path, no query or fragment; '' means the default. */
export function checkBaseUrl(value: unknown, what: string): string {
  if (typeof value !== 'string') throw ClientResultError.validation(`${what} must be a string URL`);
  if (value === '') return '';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ClientResultError.validation(`${what} must be an absolute http(s) URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    throw ClientResultError.validation(`${what} must be an http(s) URL without credentials, query or fragment`);
  }
  return value.replace(/\/+$/, '');
}
