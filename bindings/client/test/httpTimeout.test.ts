// The client's REST timeout: 30 s unless setHttpRequestTimeout says otherwise. A request the
// server never answers fails at that moment (NetworkError, retryable), not before and not never.
import { ErrorType } from '@social-layer/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientResultError } from '../src/ClientResultError.ts';
import { DEFAULT_HTTP_TIMEOUT_MS, HttpApi } from '../src/HttpApi.ts';
import { Logger } from '../src/Logger.ts';

/** A fetch that answers only by failing when its request is aborted. */
const silentFetch = ((_url: string, init?: RequestInit) =>
  new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))))) as typeof fetch;

afterEach(() => {
  vi.useRealTimers();
});

describe('HTTP timeout', () => {
  it('is 30 s by default: still waiting at 29.999 s, a retryable NetworkError at 30 s', async () => {
    vi.useFakeTimers();
    const http = new HttpApi('http://127.0.0.1:9', silentFetch, new Logger());
    expect(http.timeoutMs).toBe(30_000);
    expect(DEFAULT_HTTP_TIMEOUT_MS).toBe(30_000);
    let outcome: unknown = 'pending';
    const request = http.request({ method: 'GET', path: '/users/@me', auth: false }).then(
      () => (outcome = 'answered'),
      (e: unknown) => (outcome = e),
    );
    await vi.advanceTimersByTimeAsync(29_999);
    expect(outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    await request;
    expect(outcome).toBeInstanceOf(ClientResultError);
    const error = outcome as ClientResultError;
    expect([error.type, error.retryable]).toEqual([ErrorType.NetworkError, true]);
    expect(error.error).toBe('GET /users/@me timed out after 30000 ms');
  });

  it('follows another timeout when one is set (what Client.setHttpRequestTimeout does)', async () => {
    vi.useFakeTimers();
    const http = new HttpApi('http://127.0.0.1:9', silentFetch, new Logger());
    http.timeoutMs = 500;
    const request = http.request({ method: 'GET', path: '/gateway', auth: false }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500);
    expect(((await request) as ClientResultError).error).toBe('GET /gateway timed out after 500 ms');
  });
});
