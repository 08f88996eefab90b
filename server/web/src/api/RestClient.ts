import { dropToken, sessionToken } from './session.ts';

/** A refusal from the REST API in its documented shape `{code, message, errors?}`. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: unknown,
  ) {
    super(message);
  }
}

/**
 * The public REST API (/api/v10) with the session token sent as `Authorization: <token>` (the
 * first-party client's form: no scheme). A 401 means the token expired or was revoked: the client
 * exchanges once for a fresh one and tries again. 429s wait `retry_after` once.
 */
export class RestClient {
  constructor(private readonly base = '/api/v10') {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const token = await sessionToken();
      const res = await fetch(this.base + path, {
        method,
        headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
      if (res.status === 401 && attempt === 0) {
        dropToken(token);
        continue;
      }
      const text = await res.text();
      const parsed: unknown = text ? JSON.parse(text) : undefined;
      if (res.status === 429 && attempt === 0) {
        const wait = Number((parsed as { retry_after?: number } | undefined)?.retry_after ?? 1);
        await new Promise((r) => setTimeout(r, Math.min(wait, 10) * 1000));
        continue;
      }
      if (!res.ok) {
        const e = (parsed ?? {}) as { code?: number; message?: string; errors?: unknown };
        throw new ApiRequestError(res.status, e.code ?? 0, e.message ?? `HTTP ${res.status}`, e.errors);
      }
      return parsed as T;
    }
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body ?? {});
  }
}
