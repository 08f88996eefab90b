/**
 * An OAuth2 endpoint failure in the RFC 6749 shape `{error, error_description}` (protocols.md
 * 2.7: the token, revoke and device endpoints use it instead of `{code, message}`). `code` adds
 * the platform's JSON error code where one exists (530xxx), so SDKs can branch on it too.
 */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly code?: number,
    readonly headers?: Record<string, string>,
  ) {
    super(`${error}: ${description}`);
  }

  body(): Record<string, unknown> {
    const out: Record<string, unknown> = { error: this.error, error_description: this.description };
    if (this.code !== undefined) {
      out.code = this.code;
      out.message = this.description;
    }
    return out;
  }
}

export const OAuthErrors = {
  invalidRequest: (d: string) => new OAuthError(400, 'invalid_request', d),
  invalidClient: (basic: boolean) =>
    new OAuthError(401, 'invalid_client', 'Client authentication failed', undefined, basic ? { 'WWW-Authenticate': 'Basic realm="Social Layer"' } : undefined),
  invalidGrant: (d: string) => new OAuthError(400, 'invalid_grant', d),
  unauthorizedClient: (d: string) => new OAuthError(400, 'unauthorized_client', d),
  unsupportedGrantType: () => new OAuthError(400, 'unsupported_grant_type', 'Unsupported grant type'),
  invalidScope: (d: string) => new OAuthError(400, 'invalid_scope', d),
  authorizationPending: () => new OAuthError(400, 'authorization_pending', 'The user has not yet approved the request'),
  slowDown: () => new OAuthError(400, 'slow_down', 'Polling too fast'),
  accessDenied: () => new OAuthError(400, 'access_denied', 'The user denied the request'),
  expiredToken: () => new OAuthError(400, 'expired_token', 'The device code has expired'),
};
