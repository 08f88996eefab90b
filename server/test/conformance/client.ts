// A request function for the conformance suite: the same as the harness's `t.req`, and every
// exchange with a documented operation is checked against the document as it happens (request
// body, status, headers, response body). What is wrong is collected, not thrown, so one run names
// every difference; the suite compares the collection with its known gaps at the end.
import type { TestServer } from '../harness.ts';
import { isAllowed } from './allowlist.ts';
import { Contract, type Operation } from './contract.ts';

export interface Problem {
  /** `GET /channels/{channel_id}` */
  route: string;
  status: number;
  what: string;
}

export interface Exchange {
  status: number;
  body: any;
  headers: Headers;
}

export type RequestOptions = { token?: string; bot?: boolean; body?: unknown; raw?: string; form?: FormData; headers?: Record<string, string>; expect?: number;
  /** The body is sent to be refused as the document refuses it (so the document must refuse it too). */
  refusedBody?: boolean;
  /** Take any status as an answer (still checked against the document): the caller judges it. */
  anyStatus?: boolean;
  /** Take a 429 as an answer (checked, not retried): for the suite's rate-limit checks. */
  rateLimitOk?: boolean;
  /** Why the suite sends a body the document refuses (where the public documentation, which wins, allows more). */
  offDocument?: string;
};

const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-reset-after', 'x-ratelimit-bucket'];

export class ConformanceClient {
  readonly contract = new Contract();
  readonly problems: Problem[] = [];
  /** `METHOD template` of each documented operation that answered a success the suite checked. */
  readonly covered = new Set<string>();
  /** `METHOD template` of each documented operation that refused a request the suite checked. */
  readonly refused = new Set<string>();

  constructor(private readonly t: TestServer) {}

  /**
   * Sends the request and checks it. `expect` is the status the fixture needs (a success by
   * default); a different one throws, since the world the later steps build on is then wrong.
   */
  async req(method: string, path: string, opts: RequestOptions = {}): Promise<Exchange> {
    const bare = path.split('?')[0] ?? path;
    const op = this.contract.operation(method, bare);
    if (op && opts.body !== undefined && opts.raw === undefined && !opts.offDocument) this.checkRequestBody(op, opts.body, opts.refusedBody === true);
    let res = await this.send(method, path, opts);
    if (op) this.checkResponse(op, res);
    // As a client library does: wait as long as the 429 says, then again (that 429 checked too).
    for (let tries = 0; res.status === 429 && opts.expect !== 429 && !opts.rateLimitOk && tries < 5; tries++) {
      await new Promise((r) => setTimeout(r, Math.ceil(Number(res.body?.retry_after ?? 1) * 1000) + 20));
      res = await this.send(method, path, opts);
      if (op) this.checkResponse(op, res);
    }
    if (opts.anyStatus) return res;
    const ok = opts.expect === undefined ? (res.status >= 200 && res.status < 300) || (opts.rateLimitOk === true && res.status === 429) : res.status === opts.expect;
    if (!ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)} (expected ${opts.expect ?? '2xx'})`);
    return res;
  }

  /** As the harness's `t.req`, and multipart forms; a body that is not JSON is kept as text. */
  private async send(method: string, path: string, opts: RequestOptions): Promise<Exchange> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `${opts.bot ? 'Bot' : 'Bearer'} ${opts.token}`;
    let body: string | FormData | undefined = opts.form;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (typeof body === 'string' && !headers['content-type']) headers['content-type'] = 'application/json';
    const attempt = () => fetch(this.t.api + path, { method, headers, body });
    // A kept-alive socket that the server closes (idle timeout) just as the next request goes out
    // on it fails with ECONNRESET before any response; a client sends that request again.
    const res = await attempt()
      .catch((e: Error) => ((e.cause as { code?: string } | undefined)?.code === 'ECONNRESET' ? attempt() : Promise.reject(e)))
      .catch((e: Error) => {
        throw new Error(`${method} ${path}: ${e.message} (${String((e.cause as Error | undefined)?.message ?? e.cause)})`);
      });
    const text = await res.text();
    const json = /^application\/json\b/.test(res.headers.get('content-type') ?? '');
    return { status: res.status, body: text ? (json ? JSON.parse(text) : text) : undefined, headers: res.headers };
  }

  /**
   * A request body the suite sends must be one the document accepts, or the test proves nothing;
   * one sent to be refused (`refusedBody`) must be one the document refuses too.
   */
  private checkRequestBody(op: Operation, body: unknown, meantToFail: boolean): void {
    const pointer = this.contract.requestBodyPointer(op);
    if (!pointer) return;
    const validate = this.contract.validator(pointer);
    const accepted = validate(body);
    if (meantToFail && accepted) throw new Error(`the suite sent ${op.method} ${op.template} a body to be refused that the document accepts`);
    if (!meantToFail && !accepted) throw new Error(`the suite sent ${op.method} ${op.template} a body the document refuses: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  }

  private checkResponse(op: Operation, res: Exchange): void {
    const route = `${op.method} ${op.template}`;
    const problem = (what: string) => {
      if (!isAllowed(route, what)) this.problems.push({ route, status: res.status, what });
    };
    const documented = this.contract.response(op, res.status);
    if (res.status === 429) {
      if (!res.headers.get('retry-after')) problem('429 without Retry-After');
    }
    // Reached, whatever the status says: a success whose status differs is a problem of its own.
    if (res.status >= 200 && res.status < 300) this.covered.add(route);
    if (!documented) {
      problem(`status ${res.status} not documented (documented: ${Object.keys(op.op.responses).join(', ')})`);
      return;
    }
    if (res.status >= 400) this.refused.add(route);
    for (const h of RATE_LIMIT_HEADERS) if (!res.headers.get(h)) problem(`header ${h} missing`);
    const content = documented.response.content;
    if (!content) {
      if (res.body !== undefined) problem(`documented without a body, answered ${JSON.stringify(res.body).slice(0, 80)}`);
      return;
    }
    if (content['application/json']) {
      const type = res.headers.get('content-type');
      if (type !== 'application/json') problem(`Content-Type ${JSON.stringify(type)}, expected exactly "application/json"`);
      const pointer = `${documented.pointer}/content/application~1json/schema`;
      for (const p of this.contract.bodyProblems(pointer, res.body)) problem(p);
    }
  }
}
