import { AuthorizationTokenType, ClientStatus } from '@social-layer/protocol';
import type { Logger } from '../Logger.ts';

/** Near expiry means less than this much time left, unless the game passes its own threshold. */
export const DEFAULT_TOKEN_EXPIRY_THRESHOLD_MS = 24 * 3600 * 1000;

/** setTimeout's ceiling (about 24.8 days); longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Expiries of the tokens this client was handed, newest last; a game holds only a few at once. */
const REMEMBERED_TOKENS = 16;

/** The spec's TokenExpirationCallback. The docs' example takes the token type; the header takes nothing. */
export type TokenExpirationCallback = (tokenType: AuthorizationTokenType) => void;

export interface TokenExpiryHost {
  logger: Logger;
  /** When the server says the token expires (ms since the epoch), or undefined when it cannot tell. */
  lookup(token: string): Promise<number | undefined>;
}

/**
 * SetTokenExpirationCallback (reference/social-sdk-api.md 2.3 and 2.5): fires once per token,
 * for the last token passed to updateToken, when it is near expiry or expired, and never while
 * the client is disconnected (a token that came due meanwhile fires on the next connect).
 *
 * Where the expiry comes from: every token exchange this client ran (getToken, refreshToken,
 * the device flow, merges, getProvisionalToken, exchangeChildToken) gives `expires_in`, kept
 * here by token. A token the client never saw issued (one the game's backend obtained) is looked
 * up once on the server (`GET /oauth2/@me`, its `expires`) when the client connects with it.
 * Token values are only map keys here; nothing is logged about them but the time left.
 */
export class TokenExpiry {
  private readonly expiries = new Map<string, number>();
  private callback: TokenExpirationCallback | undefined;
  private thresholdMs = DEFAULT_TOKEN_EXPIRY_THRESHOLD_MS;
  private token: string | undefined;
  private firedFor: string | undefined;
  private lookedUp: string | undefined;
  private connected = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: TokenExpiryHost) {}

  /** Records the expiry of a token the client was just issued. */
  saw(accessToken: string, expiresInSeconds: number): void {
    if (!accessToken || !Number.isFinite(expiresInSeconds)) return;
    this.expiries.delete(accessToken);
    this.expiries.set(accessToken, Date.now() + expiresInSeconds * 1000);
    while (this.expiries.size > REMEMBERED_TOKENS) this.expiries.delete(this.expiries.keys().next().value!);
    if (accessToken === this.token) this.arm();
  }

  setCallback(callback: TokenExpirationCallback | null, thresholdMs: number): void {
    this.callback = callback ?? undefined;
    this.thresholdMs = thresholdMs;
    this.arm();
  }

  /** updateToken was called: this is the token to watch from now on. */
  tokenUpdated(token: string | undefined): void {
    if (token === this.token) return;
    this.token = token;
    this.arm();
  }

  statusChanged(status: ClientStatus): void {
    const connected = status !== ClientStatus.Disconnected && status !== ClientStatus.Disconnecting;
    if (connected === this.connected) return;
    this.connected = connected;
    this.arm();
  }

  /** The expiry known for the current token (ms since the epoch), if any. */
  expiresAt(): number | undefined {
    return this.token === undefined ? undefined : this.expiries.get(this.token);
  }

  private arm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const token = this.token;
    if (!this.callback || !this.connected || token === undefined || this.firedFor === token) return;
    const expiresAt = this.expiries.get(token);
    if (expiresAt === undefined) {
      if (this.lookedUp !== token) void this.lookup(token);
      return;
    }
    const due = expiresAt - this.thresholdMs - Date.now();
    if (due <= 0) return this.fire(token, expiresAt);
    this.timer = setTimeout(() => this.arm(), Math.min(due, MAX_TIMER_MS));
    (this.timer as { unref?: () => void }).unref?.();
  }

  private async lookup(token: string): Promise<void> {
    this.lookedUp = token;
    let expiresAt: number | undefined;
    try {
      expiresAt = await this.host.lookup(token);
    } catch {
      expiresAt = undefined;
    }
    if (expiresAt === undefined) {
      this.host.logger.verbose('token expiration: the server did not say when this token expires');
      return;
    }
    if (!this.expiries.has(token)) this.saw(token, (expiresAt - Date.now()) / 1000);
  }

  private fire(token: string, expiresAt: number): void {
    this.firedFor = token;
    const left = Math.round((expiresAt - Date.now()) / 1000);
    this.host.logger.info(left > 0 ? `token expiration: the token expires in ${left} s` : 'token expiration: the token has expired');
    const callback = this.callback!;
    queueMicrotask(() => {
      try {
        callback(AuthorizationTokenType.Bearer);
      } catch (error) {
        this.host.logger.error(`the token expiration callback threw: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }
}
