// Pieces of the client that need no server: events, errors, the message cache, backoff, names.
import { describe, expect, it } from 'vitest';
import { ClientError, ClientResultError, ClientStatus, Client, ErrorType } from '../src/index.ts';
import { backoffDelay } from '../src/backoff.ts';
import { EventHub } from '../src/EventHub.ts';
import { redact } from '../src/Logger.ts';
import { MessageCache, type MessageRecord } from '../src/MessageCache.ts';

type TestEvents = { ping: (n: number) => void; pong: (a: string, b: string) => void };

describe('EventHub', () => {
  it('delivers to every listener and unsubscribes only the one asked', () => {
    const hub = new EventHub<TestEvents>(false, () => {});
    const seen: string[] = [];
    const offA = hub.on('ping', (n) => seen.push(`a${n}`));
    hub.on('ping', (n) => seen.push(`b${n}`));
    hub.emit('ping', 1);
    offA();
    offA();
    hub.emit('ping', 2);
    expect(seen).toEqual(['a1', 'b1', 'b2']);
  });

  it('holds events until runCallbacks when queued', () => {
    const hub = new EventHub<TestEvents>(true, () => {});
    const seen: string[] = [];
    hub.on('pong', (a, b) => seen.push(a + b));
    hub.emit('pong', 'x', 'y');
    expect(seen).toEqual([]);
    expect(hub.pendingCount).toBe(1);
    hub.runCallbacks();
    expect(seen).toEqual(['xy']);
  });

  it('keeps delivering when a listener throws, and reports it', () => {
    const errors: string[] = [];
    const hub = new EventHub<TestEvents>(false, (event) => errors.push(event));
    const seen: number[] = [];
    hub.on('ping', () => {
      throw new Error('boom');
    });
    hub.on('ping', (n) => seen.push(n));
    hub.emit('ping', 7);
    expect(seen).toEqual([7]);
    expect(errors).toEqual(['ping']);
  });
});

describe('ClientResultError', () => {
  it('carries the ClientResult fields with defaults', () => {
    const error = new ClientResultError({ type: ErrorType.HTTPError, error: 'nope', status: 429, retryable: true, retryAfter: 1.5 });
    expect(error).toBeInstanceOf(Error);
    expect(error.successful).toBe(false);
    expect(error.errorCode).toBe(0);
    expect(error.responseBody).toBe('');
    expect(error.retryAfter).toBe(1.5);
    expect(String(error)).toContain('HTTPError');
  });
});

describe('MessageCache', () => {
  const record = (id: number, channelId = '100'): MessageRecord => ({
    id: String(id),
    channelId,
    lobbyId: channelId,
    authorId: '1',
    applicationId: '2',
    content: `m${id}`,
    metadata: {},
    moderationMetadata: {},
    sentTimestamp: 0,
    additionalName: null,
    announced: false,
  });

  it('keeps the 25 most recent per channel', () => {
    const cache = new MessageCache();
    const first = cache.put(record(1));
    for (let i = 2; i <= 26; i++) cache.put(record(i));
    cache.put(record(1000, '200'));
    expect(cache.get('1')).toBeUndefined();
    expect(cache.get('2')?.content).toBe('m2');
    expect(cache.get('26')).toBeDefined();
    expect(cache.get('1000')).toBeDefined();
    // The evicted record itself is intact for handles that hold it.
    expect(first.content).toBe('m1');
  });

  it('returns the cached record for a repeated id', () => {
    const cache = new MessageCache();
    const a = cache.put(record(5));
    const b = cache.put({ ...record(5), content: 'edited' });
    expect(b).toBe(a);
    expect(a.content).toBe('edited');
  });
});

describe('backoff', () => {
  it('grows, is capped, and keeps half of the delay fixed', () => {
    const options = { baseDelayMs: 1000, maxDelayMs: 30_000 };
    expect(backoffDelay(0, options, () => 0)).toBe(500);
    expect(backoffDelay(0, options, () => 1)).toBe(1000);
    expect(backoffDelay(3, options, () => 0)).toBe(4000);
    expect(backoffDelay(50, options, () => 1)).toBe(30_000);
  });
});

describe('names and statics', () => {
  it('maps enums to text and gives the default scopes', () => {
    expect(Client.statusToString(ClientStatus.Ready)).toBe('Ready');
    expect(Client.statusToString(ClientStatus.Reconnecting)).toBe('Reconnecting');
    expect(Client.errorToString(ClientError.UnexpectedClose)).toBe('UnexpectedClose');
    expect(Client.getDefaultCommunicationScopes()).toBe('openid sdk.social_layer');
    expect(Client.getDefaultPresenceScopes()).toBe('openid sdk.social_layer_presence');
  });

  it('redacts credentials from free text', () => {
    expect(redact('Authorization: Bearer abc.def-123 x')).toBe('Authorization: Bearer [redacted] x');
    expect(redact('{"token":"secret","op":2}')).toBe('{"token":"[redacted]","op":2}');
  });
});
