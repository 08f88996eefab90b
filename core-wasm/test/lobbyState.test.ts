import { beforeEach, describe, expect, it } from 'vitest';
import {
  LobbyEventKind as K,
  LobbyState,
  canonicalMetadataJson,
  coreModule,
  instantiateCore,
  type LobbyMemberSnapshot,
  type LobbySnapshot,
} from '../src/index.ts';

const SELF = '1300000000000000001';
const A = '1300000000000000002';
const B = '1300000000000000003';
const L1 = '1400000000000000001';
const L2 = '1400000000000000002';
// Above 2^63: only exact if the boundary keeps all 64 bits unsigned.
const HUGE = '18446744073709551615';
const HUGE2 = '9223372036854775809';

const member = (id: string, extra: Partial<LobbyMemberSnapshot> = {}): LobbyMemberSnapshot => ({
  id,
  connected: true,
  flags: 0,
  metadataJson: 'null',
  ...extra,
});
const lobby = (id: string, members: LobbyMemberSnapshot[], metadataJson = 'null'): LobbySnapshot => ({
  id,
  metadataJson,
  members,
});
const ev = (kind: number, lobbyId: string, memberId = '0') => ({ kind, lobbyId, memberId });

describe('loader', () => {
  it('instantiates core.wasm with one import namespace', async () => {
    const module = await coreModule();
    const namespaces = new Set(WebAssembly.Module.imports(module).map((i) => i.module));
    expect([...namespaces]).toEqual(['env']);
    const core = await instantiateCore();
    expect(core.memory).toBeInstanceOf(WebAssembly.Memory);
    expect(core.lobbyCount()).toBe(0);
  });

  it('gives each LobbyState its own instance', async () => {
    const a = await LobbyState.create();
    const b = await LobbyState.create();
    a.upsertLobby(lobby(L1, []));
    expect(a.has(L1)).toBe(true);
    expect(b.has(L1)).toBe(false);
  });
});

describe('LobbyState (docs/contracts.md)', () => {
  let s: LobbyState;
  beforeEach(async () => {
    s = await LobbyState.create();
    s.setSelf(SELF);
  });

  it('a new lobby gives LobbyCreated only, not MemberAdded for its members', () => {
    s.upsertLobby(lobby(L1, [member(SELF), member(A, { flags: 1, metadataJson: '{"k":"v"}' })], '{"a":"1"}'));
    expect(s.drainEvents()).toEqual([ev(K.LobbyCreated, L1)]);
    expect(s.lobbyIds()).toEqual([L1]);
    expect(s.memberIds(L1)).toEqual([SELF, A]);
    expect(s.memberFlags(L1, A)).toBe(1);
    expect(s.memberMetadataJson(L1, A)).toBe('{"k":"v"}');
    expect(s.lobbyMetadataJson(L1)).toBe('{"a":"1"}');
    expect(s.memberConnected(L1, A)).toBe(true);
  });

  it('drainEvents empties the queue', () => {
    s.upsertLobby(lobby(L1, [member(SELF)]));
    expect(s.drainEvents()).toHaveLength(1);
    expect(s.drainEvents()).toEqual([]);
  });

  it('an identical upsert gives no events', () => {
    const snap = lobby(L1, [member(SELF), member(A, { metadataJson: '{"x":"y"}' })], '{"a":"1"}');
    s.upsertLobby(snap);
    s.drainEvents();
    s.upsertLobby(structuredClone(snap));
    s.upsertMember(L1, member(A, { metadataJson: '{"x":"y"}' }));
    expect(s.drainEvents()).toEqual([]);
  });

  it('a metadata change gives LobbyUpdated', () => {
    s.upsertLobby(lobby(L1, [member(SELF)], '{"a":"1"}'));
    s.drainEvents();
    s.upsertLobby(lobby(L1, [member(SELF)], '{"a":"2"}'));
    expect(s.drainEvents()).toEqual([ev(K.LobbyUpdated, L1)]);
    expect(s.lobbyMetadataJson(L1)).toBe('{"a":"2"}');
    s.upsertLobby(lobby(L1, [member(SELF)], 'null'));
    expect(s.drainEvents()).toEqual([ev(K.LobbyUpdated, L1)]);
    expect(s.lobbyMetadataJson(L1)).toBe('null');
  });

  it('member diffs in a lobby upsert: added, updated, removed', () => {
    s.upsertLobby(lobby(L1, [member(SELF), member(A)]));
    s.drainEvents();
    s.upsertLobby(lobby(L1, [member(SELF), member(A, { connected: false }), member(B)], '{"m":"1"}'));
    expect(s.drainEvents()).toEqual([
      ev(K.LobbyUpdated, L1),
      ev(K.MemberUpdated, L1, A),
      ev(K.MemberAdded, L1, B),
    ]);
    s.upsertLobby(lobby(L1, [member(SELF), member(B)], '{"m":"1"}'));
    expect(s.drainEvents()).toEqual([ev(K.MemberRemoved, L1, A)]);
    expect(s.memberIds(L1)).toEqual([SELF, B]);
  });

  it('MemberUpdated for connected, flags and metadata changes', () => {
    s.upsertLobby(lobby(L1, [member(SELF), member(A)]));
    s.drainEvents();
    s.upsertMember(L1, member(A, { connected: false }));
    expect(s.memberConnected(L1, A)).toBe(false);
    s.upsertMember(L1, member(A, { connected: false, flags: 1 }));
    expect(s.memberFlags(L1, A)).toBe(1);
    s.upsertMember(L1, member(A, { connected: false, flags: 1, metadataJson: '{"r":"é🎮"}' }));
    expect(s.memberMetadataJson(L1, A)).toBe('{"r":"é🎮"}');
    expect(s.drainEvents()).toEqual([ev(K.MemberUpdated, L1, A), ev(K.MemberUpdated, L1, A), ev(K.MemberUpdated, L1, A)]);
  });

  it('upsertMember adds and removeMember removes with events', () => {
    s.upsertLobby(lobby(L1, [member(SELF)]));
    s.drainEvents();
    s.upsertMember(L1, member(A));
    s.removeMember(L1, A);
    s.removeMember(L1, A); // already gone: nothing
    expect(s.drainEvents()).toEqual([ev(K.MemberAdded, L1, A), ev(K.MemberRemoved, L1, A)]);
    expect(s.memberConnected(L1, A)).toBeUndefined();
    expect(s.memberFlags(L1, A)).toBeUndefined();
  });

  it('never reports MemberAdded or MemberRemoved for self, but does report MemberUpdated', () => {
    s.upsertLobby(lobby(L1, [member(A)]));
    s.drainEvents();
    s.upsertMember(L1, member(SELF));
    s.upsertLobby(lobby(L1, [member(A), member(SELF, { connected: false })]));
    expect(s.drainEvents()).toEqual([ev(K.MemberUpdated, L1, SELF)]);
    s.upsertLobby(lobby(L1, [member(A)]));
    expect(s.drainEvents()).toEqual([]);
  });

  it('removing self deletes the lobby', () => {
    s.upsertLobby(lobby(L1, [member(SELF), member(A)]));
    s.drainEvents();
    s.removeMember(L1, SELF);
    expect(s.drainEvents()).toEqual([ev(K.LobbyDeleted, L1)]);
    expect(s.has(L1)).toBe(false);
    expect(s.lobbyIds()).toEqual([]);
  });

  it('removeLobby gives LobbyDeleted once', () => {
    s.upsertLobby(lobby(L1, [member(SELF)]));
    s.drainEvents();
    s.removeLobby(L1);
    s.removeLobby(L1);
    expect(s.drainEvents()).toEqual([ev(K.LobbyDeleted, L1)]);
  });

  it('member events for an unknown lobby are ignored', () => {
    s.upsertMember(L2, member(A));
    s.removeMember(L2, A);
    expect(s.drainEvents()).toEqual([]);
    expect(s.has(L2)).toBe(false);
  });

  it('sync reconciliation removes lobbies not seen since beginSync', () => {
    s.upsertLobby(lobby(L1, [member(SELF)]));
    s.upsertLobby(lobby(L2, [member(SELF)]));
    s.drainEvents();
    s.beginSync();
    s.upsertLobby(lobby(L2, [member(SELF), member(A)]));
    s.upsertLobby(lobby(HUGE, [member(SELF)]));
    s.endSync();
    expect(s.drainEvents()).toEqual([
      ev(K.MemberAdded, L2, A),
      ev(K.LobbyCreated, HUGE),
      ev(K.LobbyDeleted, L1),
    ]);
    expect(s.lobbyIds()).toEqual([L2, HUGE]);
    // A second sync that repeats the state gives nothing.
    s.beginSync();
    s.upsertLobby(lobby(L2, [member(SELF), member(A)]));
    s.upsertLobby(lobby(HUGE, [member(SELF)]));
    s.endSync();
    expect(s.drainEvents()).toEqual([]);
    // An empty READY drops everything.
    s.beginSync();
    s.endSync();
    expect(s.drainEvents()).toEqual([ev(K.LobbyDeleted, L2), ev(K.LobbyDeleted, HUGE)]);
  });

  it('endSync without beginSync does nothing', () => {
    s.upsertLobby(lobby(L1, [member(SELF)]));
    s.drainEvents();
    s.endSync();
    expect(s.drainEvents()).toEqual([]);
    expect(s.has(L1)).toBe(true);
  });

  it('IDs above 2^53 and 2^63 round-trip exactly', () => {
    s.setSelf(HUGE2);
    expect(s.self()).toBe(HUGE2);
    s.upsertLobby(lobby(HUGE, [member(HUGE2), member('9007199254740993'), member(HUGE)]));
    const events = s.drainEvents();
    expect(events).toEqual([ev(K.LobbyCreated, HUGE)]);
    expect(s.lobbyIds()).toEqual([HUGE]);
    expect(s.memberIds(HUGE)).toEqual([HUGE2, '9007199254740993', HUGE]);
    s.removeMember(HUGE, '9007199254740993');
    expect(s.drainEvents()).toEqual([ev(K.MemberRemoved, HUGE, '9007199254740993')]);
    s.removeMember(HUGE, HUGE2);
    expect(s.drainEvents()).toEqual([ev(K.LobbyDeleted, HUGE)]);
  });

  it('rejects malformed IDs in mutations and answers unknown in queries', () => {
    expect(() => s.upsertLobby(lobby('abc', []))).toThrow(TypeError);
    expect(() => s.upsertLobby(lobby('18446744073709551616', []))).toThrow(TypeError);
    expect(() => s.removeLobby('-1')).toThrow(TypeError);
    expect(s.has('abc')).toBe(false);
    expect(s.memberIds('x')).toEqual([]);
    expect(s.lobbyMetadataJson('x')).toBeUndefined();
  });

  it('reset forgets lobbies and queued events without events', () => {
    s.upsertLobby(lobby(L1, [member(SELF)]));
    s.reset();
    expect(s.drainEvents()).toEqual([]);
    expect(s.lobbyIds()).toEqual([]);
    s.upsertLobby(lobby(L1, [member(SELF)]));
    expect(s.drainEvents()).toEqual([ev(K.LobbyCreated, L1)]);
  });

  it('handles large lobbies and metadata that outgrow the scratch buffer', () => {
    const big = canonicalMetadataJson({ z: 'x'.repeat(20000), a: '🎮'.repeat(3000) });
    const members = Array.from({ length: 1000 }, (_, i) => member(String(5000000000000000000n + BigInt(i)), { metadataJson: big }));
    s.upsertLobby(lobby(L1, [member(SELF), ...members], big));
    expect(s.drainEvents()).toEqual([ev(K.LobbyCreated, L1)]);
    expect(s.memberIds(L1)).toHaveLength(1001);
    expect(s.lobbyMetadataJson(L1)).toBe(big);
    expect(s.memberMetadataJson(L1, members[999]!.id)).toBe(big);
    s.upsertLobby(lobby(L1, [member(SELF), ...members.slice(1)], big));
    expect(s.drainEvents()).toEqual([ev(K.MemberRemoved, L1, members[0]!.id)]);
  });

  it('canonicalMetadataJson sorts keys', () => {
    expect(canonicalMetadataJson({ b: '2', a: '1' })).toBe('{"a":"1","b":"2"}');
    expect(canonicalMetadataJson(null)).toBe('null');
  });
});
