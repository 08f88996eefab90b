import type { DesktopCompanion } from './desktop/DesktopCompanion.ts';
import type { AudioSystem } from './enums.ts';
import type { FetchLike } from './HttpApi.ts';
import type { VoiceOptions } from './voice/VoiceManager.ts';
import type { WebSocketConstructor } from './webSocket.ts';

/** Options of `Client.create` / `new Client(options)`: the server, the application, and how events, timeouts and voice behave. */
export interface ClientOptions {
  /** Server origin, e.g. 'http://127.0.0.1:3333'. Default: the page's origin in a browser, else that. */
  apiBase?: string;
  /** Application (client) ID; READY sets it when left unset. */
  applicationId?: string;
  /** WebSocket class to use. Needed nowhere: default is the global one, else the `ws` package. */
  webSocket?: WebSocketConstructor;
  /** Hold every event until `runCallbacks()`, as the native SDK's callback pump. Default false. */
  queueEvents?: boolean;
  /** fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
  /** HTTP request timeout in ms (default 30000); see also `setHttpRequestTimeout`. */
  httpTimeoutMs?: number;
  /** First reconnect delay in ms before jitter (default 1000); doubles per failed attempt. */
  reconnectBaseDelayMs?: number;
  /** Largest reconnect delay in ms (default 30000). */
  reconnectMaxDelayMs?: number;
  /** Watchdog from opening a Gateway socket to READY/RESUMED, in ms (default 30000). */
  handshakeTimeoutMs?: number;
  /** Voice: transports, codec, WebSocket class and timeouts (see src/voice/README.md). */
  voice?: VoiceOptions;
  /** Where the platform's web pages live (device activation link, account page). Default: apiBase. */
  webBase?: string;
  /** ClientCreateOptions' experimental audio system: accepted, no effect in browsers and Node. */
  experimentalAudioSystem?: AudioSystem;
  /** ClientCreateOptions' Android Bluetooth switch: accepted, no effect in browsers and Node. */
  experimentalAndroidPreventCommsForBluetooth?: boolean;
  /** ClientCreateOptions' CPU affinity hint: accepted, no effect (JavaScript cannot pin threads). */
  cpuAffinityMask?: bigint;
  /**
   * The local desktop companion (issue 16's IPC module plugs in here): getDiscordClientConnectedUser
   * and the activity-join events come from it. Default: none, which finds nothing.
   */
  desktopCompanion?: DesktopCompanion;
}

/** The server origin outside a browser when `apiBase` is not given: a platform started with `npm start` on this machine. */
export const DEFAULT_API_BASE = 'http://127.0.0.1:3333';

export function defaultApiBase(): string {
  const location = (globalThis as { location?: { origin?: string; protocol?: string } }).location;
  if (location?.origin && /^https?:$/.test(location.protocol ?? '')) return location.origin;
  return DEFAULT_API_BASE;
}
