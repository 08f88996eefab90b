// Route schemas as callers meet them: the 50035 tree with every problem at once, path IDs that
// keep their 404s, unknown fields ignored and never stored; and security fix 6 (issue 9): a lone
// UTF-16 surrogate in any string is refused (it would be stored as U+FFFD, so what was
// acknowledged would not be what is stored), and a `__proto__` key is refused, not dropped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/http/ApiError.ts';
import { Choice, Nullable, parseWith, Str, Type } from '../src/http/schemas/index.ts';
import { cleanupTempDirs, RawGateway, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let alice: { token: string; userId: string };
let bob: { token: string; userId: string };
let lobbyId: string;

beforeAll(async () => {
  t = await startTestServer();
  alice = await t.guest('Alice');
  bob = await t.guest('Bob');
  const r = await t.req('PUT', '/lobbies', { token: alice.token, body: { secret: 'schemas-room', lobby_metadata: { map: 'forest' } } });
  expect(r.status).toBe(200);
  lobbyId = r.body.id;
  await t.req('PUT', '/lobbies', { token: bob.token, body: { secret: 'schemas-room' } });
}, 60_000);

afterAll(async () => {
  await t?.close();
  cleanupTempDirs();
});

const messageCount = () => t.server.store.messages.countLobbyMessages(lobbyId);
/** JSON text with a lone high surrogate, escaped as JSON allows (`JSON.stringify` would keep it too). */
const LONE = '\\ud83d';

describe('the 50035 errors tree', () => {
  it('reports every problem of a body at once, nested by field path, arrays keyed by index', async () => {
    const r = await t.req('POST', `/lobbies/${lobbyId}/members/bulk`, {
      token: t.app.botToken,
      bot: true,
      body: [{ id: 'nope', flags: 2, metadata: { a: 1 } }, { remove_member: 'yes' }],
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        '0': {
          id: { _errors: [{ code: 'NUMBER_TYPE_COERCE', message: 'Value "nope" is not snowflake.' }] },
          flags: { _errors: [{ code: 'NUMBER_TYPE_MAX', message: 'Int value should be less than or equal to 1.' }] },
          metadata: { a: { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Must be a string.' }] } },
        },
        '1': {
          id: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] },
          remove_member: { _errors: [{ code: 'BASE_TYPE_BOOLEAN', message: 'Must be either true or false.' }] },
        },
      },
    });
  });

  it('answers query strings in the same shape, and keeps 404 for path IDs that cannot be IDs', async () => {
    const q = await t.req('GET', `/lobbies/${lobbyId}/messages?limit=abc`, { token: alice.token });
    expect(q.body).toEqual({ code: 50035, message: 'Invalid Form Body', errors: { limit: { _errors: [{ code: 'NUMBER_TYPE_COERCE', message: 'Value "abc" is not int.' }] } } });
    const bool = await t.req('DELETE', `/users/@me/relationships/${bob.userId}?with_game=maybe`, { token: alice.token });
    expect(bool.body.errors.with_game._errors[0].code).toBe('BASE_TYPE_BOOLEAN');
    expect((await t.req('GET', '/lobbies/not-an-id', { token: alice.token })).body).toEqual({ code: 10031, message: 'Unknown Lobby' });
    expect((await t.req('GET', '/users/@me/activity-invites/x', { token: alice.token })).body).toEqual({ code: 10006, message: 'Unknown Invite' });
    expect((await t.req('POST', '/users/18446744073709551616/messages', { token: alice.token, body: { content: 'hi' } })).body).toEqual({ code: 10013, message: 'Unknown User' });
  });

  it('ignores unknown fields, at every depth, and stores none of them', async () => {
    const r = await t.req('PUT', '/users/@me/activities', {
      token: alice.token,
      body: { state: 'In the forest', extra: 'x', assets: { large_image: 'map', evil: 'y' }, party: { id: 'party-1', size: [1, 4], secret_sauce: true } },
    });
    expect(r.status).toBe(200);
    expect(r.body.extra).toBeUndefined();
    expect(r.body.assets).toEqual({ large_image: 'map' });
    expect(r.body.party).toEqual({ id: 'party-1', size: [1, 4] });
  });
});

describe('security fix 6: lone surrogates and __proto__ keys', () => {
  it('refuses a lone surrogate in content, metadata values and keys, and stores nothing', async () => {
    const before = await messageCount();
    const path = `/lobbies/${lobbyId}/messages`;
    const inContent = await t.req('POST', path, { token: alice.token, raw: `{"content":"hi ${LONE}"}` });
    expect(inContent.status).toBe(400);
    expect(inContent.body.code).toBe(50035);
    expect(inContent.body.errors.content._errors[0].code).toBe('STRING_TYPE_INVALID_UNICODE');
    const inValue = await t.req('POST', path, { token: alice.token, raw: `{"content":"ok","metadata":{"k":"${LONE}x"}}` });
    expect(inValue.body.errors.metadata.k._errors[0].code).toBe('STRING_TYPE_INVALID_UNICODE');
    const inKey = await t.req('POST', path, { token: alice.token, raw: `{"content":"ok","metadata":{"k${LONE}":"v"}}` });
    expect(inKey.body.errors.metadata._errors[0].code).toBe('STRING_TYPE_INVALID_UNICODE');
    // A low surrogate alone, and a pair in the wrong order, are lone halves too.
    const reversed = await t.req('POST', path, { token: alice.token, raw: '{"content":"\\ude00\\ud83d"}' });
    expect(reversed.body.errors.content._errors[0].code).toBe('STRING_TYPE_INVALID_UNICODE');
    expect(await messageCount()).toBe(before);
  });

  it('stores a well-formed astral character exactly as acknowledged', async () => {
    const content = 'party 😀 time 𝄞';
    const sent = await t.req('POST', `/lobbies/${lobbyId}/messages`, { token: alice.token, body: { content, metadata: { mood: '😀' } } });
    expect(sent.status).toBe(200);
    expect(sent.body.content).toBe(content);
    const history = await t.req('GET', `/lobbies/${lobbyId}/messages?limit=1`, { token: bob.token });
    expect(history.body[0]).toMatchObject({ id: sent.body.id, content, metadata: { mood: '😀' } });
  });

  it('refuses lone surrogates in every route family: display names, DMs, presence, and the Gateway', async () => {
    const name = await t.req('PATCH', '/users/@me', { token: alice.token, raw: `{"global_name":"Al${LONE}"}` });
    expect(name.body.errors.global_name._errors[0].code).toBe('STRING_TYPE_INVALID_UNICODE');
    expect((await t.req('GET', '/users/@me', { token: alice.token })).body.global_name).toBe('Alice');
    const dm = await t.req('POST', `/users/${bob.userId}/messages`, { token: alice.token, raw: `{"content":"${LONE}"}` });
    expect([dm.status, dm.body.code]).toEqual([400, 50035]);
    const activity = await t.req('PUT', '/users/@me/activities', { token: alice.token, raw: `{"state":"in ${LONE} land"}` });
    expect(activity.body.errors.state._errors[0].code).toBe('STRING_TYPE_INVALID_UNICODE');
    // Gateway op 3 is checked by the same schema: an invalid payload closes with 4001.
    const gw = await RawGateway.open(t.server);
    await gw.identify(alice.token);
    gw.send(`{"op":3,"d":{"status":"online","activities":[{"state":"x${LONE}y"}]}}`);
    expect(await gw.closed()).toBe(4001);
  });

  it('refuses a __proto__ key in metadata and at the top of a body, instead of dropping it', async () => {
    const before = await messageCount();
    const inMeta = await t.req('POST', `/lobbies/${lobbyId}/messages`, { token: alice.token, raw: '{"content":"ok","metadata":{"__proto__":"x","k":"v"}}' });
    expect(inMeta.status).toBe(400);
    expect(inMeta.body.code).toBe(50035);
    expect(inMeta.body.errors.metadata._errors[0]).toEqual({ code: 'DICT_TYPE_RESERVED_KEY', message: 'The key "__proto__" is not allowed.' });
    const nested = await t.req('PUT', `/lobbies/${lobbyId}/members/${bob.userId}`, { token: t.app.botToken, bot: true, raw: '{"metadata":{"__proto__":{"polluted":"yes"}}}' });
    expect(nested.body.errors.metadata._errors[0].code).toBe('DICT_TYPE_RESERVED_KEY');
    const top = await t.req('PUT', '/lobbies', { token: alice.token, raw: '{"__proto__":{"secret":"other"},"secret":"schemas-room"}' });
    expect(top.status).toBe(400);
    expect(top.body.errors._errors[0].code).toBe('DICT_TYPE_RESERVED_KEY');
    expect(await messageCount()).toBe(before);
    // Nothing reached a prototype on the way.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const member = (await t.req('GET', `/lobbies/${lobbyId}`, { token: alice.token })).body.members.find((m: any) => m.id === bob.userId);
    expect(member.metadata).toBeNull();
  });
});

describe('the schema pieces (parseWith, as Gateway op 3 uses them)', () => {
  const fail = (schema: Parameters<typeof parseWith>[0], value: unknown) => {
    try {
      parseWith(schema, value);
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      return (e as ApiError).body() as { code: number; message: string; errors?: unknown };
    }
    throw new Error('expected a 50035');
  };

  it('names every value of a union of constants, and the first branch of other unions', () => {
    const schema = Type.Object({ kind: Type.Union([Type.Literal(0), Type.Literal(2), Type.Literal(4)]), name: Type.Optional(Nullable(Str(1, 5))), mode: Type.Optional(Choice(['a', 'b'])) });
    expect(fail(schema, { kind: 3, name: 7, mode: 'c' })).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        kind: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: 'Value must be one of {0, 2, 4}.' }] },
        name: { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Must be a string.' }] },
        mode: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: 'Value must be one of {a, b}.' }] },
      },
    });
  });

  it('returns only the fields the schema names, and never coerces a body', () => {
    const schema = Type.Object({ a: Type.Object({ b: Type.Integer() }) });
    expect(parseWith(schema, { a: { b: 1, c: 2 }, d: 3 })).toEqual({ a: { b: 1 } });
    expect(fail(schema, { a: { b: '1' } }).errors).toEqual({ a: { b: { _errors: [{ code: 'NUMBER_TYPE_COERCE', message: 'Value "1" is not int.' }] } } });
  });
});
