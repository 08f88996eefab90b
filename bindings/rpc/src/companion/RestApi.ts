/** A reply of the platform's REST API. */
export interface RestReply {
  status: number;
  body: any;
}

/**
 * The platform's public REST API with one bearer token per call. Tokens go only into the
 * Authorization header: no URL, message or error built here ever contains one.
 */
export class RestApi {
  readonly apiBase: string;

  constructor(
    readonly serverUrl: string,
    private readonly timeoutMs = 15_000,
  ) {
    this.apiBase = `${serverUrl.replace(/\/+$/, '')}/api/v10`;
  }

  async request(method: string, path: string, token: string | undefined, body?: unknown, form?: Record<string, string>): Promise<RestReply> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(form).toString();
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(this.apiBase + path, { method, headers, body: payload, signal: AbortSignal.timeout(this.timeoutMs) });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed };
  }
}
