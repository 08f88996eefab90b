import {
  ErrorType,
  type DeviceAuthorizationResponse,
  type OAuthErrorBody,
  type TokenResponse,
} from '@social-layer/protocol';
import { ClientResultError } from '../ClientResultError.ts';
import type { HttpApi } from '../HttpApi.ts';
import type { Logger } from '../Logger.ts';

/**
 * The form-encoded OAuth2 endpoints (token, revoke, device authorization; protocols.md 2.7).
 * An OAuth2 refusal (400/401 with `{error, error_description}`) rejects with ErrorType
 * AuthorizationFailed, `error` starting with the OAuth2 code (`invalid_grant: ...`) and
 * `errorCode` the platform code when the server sends one (530017, say); network failures,
 * 429 and 5xx keep the HTTP-layer types. Form values and tokens are never logged: only the
 * method, the path and the outcome.
 */
export class OAuthApi {
  constructor(private readonly http: HttpApi, private readonly logger: Logger) {}

  token(form: Record<string, string>): Promise<TokenResponse & { issued_token_type?: string }> {
    return this.post('/oauth2/token', form);
  }

  async revoke(form: Record<string, string>): Promise<void> {
    await this.post('/oauth2/token/revoke', form);
  }

  deviceAuthorize(form: Record<string, string>): Promise<DeviceAuthorizationResponse> {
    return this.post('/oauth2/device/authorize', form);
  }

  /**
   * A GET with a token of the caller's rather than the client's own (fetchCurrentUser, the
   * expiry lookup). Failures are HTTPError with the status (401 for a bad or expired token).
   */
  getWithToken<T>(path: string, token: string): Promise<T> {
    return this.send('GET', path, { Authorization: `Bearer ${token}` });
  }

  private post<T>(path: string, form: Record<string, string>): Promise<T> {
    return this.send('POST', path, { 'Content-Type': 'application/x-www-form-urlencoded' }, new URLSearchParams(form).toString());
  }

  private async send<T>(method: 'GET' | 'POST', path: string, headers: Record<string, string>, requestBody?: string): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.http.timeoutMs);
    const label = `${method} ${path}`;
    let response: Response;
    let text: string;
    try {
      response = await this.http.fetchImpl(`${this.http.apiRoot}${path}`, {
        method,
        headers: { ...headers, Accept: 'application/json' },
        body: requestBody,
        signal: controller.signal,
      });
      text = await response.text();
    } catch (cause) {
      const error = controller.signal.aborted ? `${label} timed out after ${this.http.timeoutMs} ms` : `${label} failed: ${cause instanceof Error ? cause.message : String(cause)}`;
      this.logger.warn(error);
      throw new ClientResultError({ type: ErrorType.NetworkError, error, retryable: true });
    } finally {
      clearTimeout(timer);
    }
    this.logger.verbose(`${label} -> ${response.status}`);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = undefined;
    }
    if (response.ok && body !== undefined) return body as T;
    const oauth = body as Partial<OAuthErrorBody> | undefined;
    const retryable = response.status === 429 || response.status >= 500;
    const isOAuth = !retryable && typeof oauth?.error === 'string';
    const error = isOAuth ? `${oauth!.error}${oauth!.error_description ? `: ${oauth!.error_description}` : ''}` : `${label}: ${response.status}`;
    // Only the OAuth2 error code and description are logged, never the request.
    this.logger.info(`${label}: ${response.status} ${isOAuth ? oauth!.error : ''}`);
    const retryAfter = Number.parseFloat(response.headers.get('retry-after') ?? '');
    throw new ClientResultError({
      type: isOAuth ? ErrorType.AuthorizationFailed : ErrorType.HTTPError,
      error,
      errorCode: typeof oauth?.code === 'number' ? oauth.code : 0,
      status: response.status,
      responseBody: text,
      retryable,
      retryAfter: response.status === 429 && Number.isFinite(retryAfter) ? retryAfter : 0,
    });
  }
}
