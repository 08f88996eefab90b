// The lobby state machine: one transition point per input (upsertLobby, removeLobby,
// upsertMember, removeMember, endSync), each diffing the input against the stored state and
// queueing events (events.ts). Rules are docs/contracts.md "core-wasm lobby state".
import { LobbyEventKind } from '../generated/enums';
import { pushEvent, eventsClear } from './events';
import { Lobby, Member } from './Lobby';
import { RecordReader, bytesEqual, copyBytes } from './records';

let selfId: u64 = 0;
let syncGen: u32 = 1;
let syncing: bool = false;
/** Incremented per snapshot so that Member marks from older snapshots never match. */
let markGen: u32 = 0;

const lobbies = new Map<u64, Lobby>();
/** Lobby ids in creation order, so that lobbyIds() is stable. */
const order = new Array<Lobby>();

export function setSelf(id: u64): void {
  selfId = id;
}

export function getSelf(): u64 {
  return selfId;
}

export function beginSync(): void {
  syncing = true;
  syncGen++;
}

export function endSync(): void {
  if (!syncing) return;
  syncing = false;
  // Walk a copy of the order: dropLobby edits it.
  const stale = new Array<Lobby>();
  for (let i = 0, n = order.length; i < n; i++) {
    const lobby = unchecked(order[i]);
    if (lobby.syncGen != syncGen) stale.push(lobby);
  }
  for (let i = 0, n = stale.length; i < n; i++) {
    const lobby = unchecked(stale[i]);
    dropLobby(lobby);
    pushEvent(LobbyEventKind.LobbyDeleted, lobby.id, 0);
  }
}

function findLobby(id: u64): Lobby | null {
  return lobbies.has(id) ? lobbies.get(id) : null;
}

function dropLobby(lobby: Lobby): void {
  lobbies.delete(lobby.id);
  for (let i = 0, n = order.length; i < n; i++) {
    if (unchecked(order[i]) === lobby) {
      order.splice(i, 1);
      break;
    }
  }
}

/** Applies the lobby record at [ptr, ptr+len) (layout in records.ts). */
export function upsertLobby(ptr: usize, len: i32): void {
  const r = new RecordReader(ptr, ptr + <usize>len);
  const id = r.u64();
  const metaLen = r.u32();
  const metaPtr = r.bytes(metaLen);
  const count = r.u32();

  let lobby = findLobby(id);
  const created = lobby === null;
  if (lobby === null) {
    lobby = new Lobby(id, copyBytes(metaPtr, metaLen));
    lobbies.set(id, lobby);
    order.push(lobby);
    pushEvent(LobbyEventKind.LobbyCreated, id, 0);
  } else if (!bytesEqual(lobby.meta, metaPtr, metaLen)) {
    lobby.meta = copyBytes(metaPtr, metaLen);
    pushEvent(LobbyEventKind.LobbyUpdated, id, 0);
  }
  lobby.syncGen = syncGen;

  const mark = ++markGen;
  for (let i: u32 = 0; i < count; i++) {
    const memberId = r.u64();
    const connected = r.u8() != 0;
    const flags = r.u32();
    const mLen = r.u32();
    const mPtr = r.bytes(mLen);
    let member = lobby.get(memberId);
    if (member === null) {
      member = new Member(memberId, connected, flags, copyBytes(mPtr, mLen));
      lobby.add(member);
      // A new lobby arrives whole: its members are part of LobbyCreated.
      if (!created && memberId != selfId) pushEvent(LobbyEventKind.MemberAdded, id, memberId);
    } else if (member.differs(connected, flags, mPtr, mLen)) {
      member.assign(connected, flags, mPtr, mLen);
      if (!created) pushEvent(LobbyEventKind.MemberUpdated, id, memberId);
    }
    member.mark = mark;
  }

  // Members absent from the snapshot left. Self is never reported as removed here; the server
  // tells us we left with LOBBY_DELETE (removeLobby) or a member remove (removeMember).
  const members = lobby.members;
  let write = 0;
  for (let i = 0, n = members.length; i < n; i++) {
    const member = unchecked(members[i]);
    if (member.mark == mark) {
      unchecked((members[write++] = member));
    } else {
      lobby.index.delete(member.id);
      if (member.id != selfId) pushEvent(LobbyEventKind.MemberRemoved, id, member.id);
    }
  }
  members.length = write;
}

export function removeLobby(id: u64): bool {
  const lobby = findLobby(id);
  if (lobby === null) return false;
  dropLobby(lobby);
  pushEvent(LobbyEventKind.LobbyDeleted, id, 0);
  return true;
}

/** Applies the member record at [ptr, ptr+len) to a known lobby; unknown lobbies are ignored. */
export function upsertMember(lobbyId: u64, ptr: usize, len: i32): bool {
  const lobby = findLobby(lobbyId);
  if (lobby === null) return false;
  const r = new RecordReader(ptr, ptr + <usize>len);
  const memberId = r.u64();
  const connected = r.u8() != 0;
  const flags = r.u32();
  const mLen = r.u32();
  const mPtr = r.bytes(mLen);
  const member = lobby.get(memberId);
  if (member === null) {
    lobby.add(new Member(memberId, connected, flags, copyBytes(mPtr, mLen)));
    if (memberId != selfId) pushEvent(LobbyEventKind.MemberAdded, lobbyId, memberId);
    return true;
  }
  if (!member.differs(connected, flags, mPtr, mLen)) return false;
  member.assign(connected, flags, mPtr, mLen);
  pushEvent(LobbyEventKind.MemberUpdated, lobbyId, memberId);
  return true;
}

export function removeMember(lobbyId: u64, memberId: u64): bool {
  const lobby = findLobby(lobbyId);
  if (lobby === null) return false;
  if (memberId == selfId && selfId != 0) {
    dropLobby(lobby);
    pushEvent(LobbyEventKind.LobbyDeleted, lobbyId, 0);
    return true;
  }
  if (!lobby.remove(memberId)) return false;
  pushEvent(LobbyEventKind.MemberRemoved, lobbyId, memberId);
  return true;
}

export function reset(): void {
  lobbies.clear();
  order.length = 0;
  syncing = false;
  eventsClear();
}

// ---- queries -------------------------------------------------------------------------------

export function lobbyCount(): i32 {
  return order.length;
}

/** Writes the lobby ids (u64 LE) to `dst`, which must hold lobbyCount() * 8 bytes. */
export function copyLobbyIds(dst: usize): i32 {
  const n = order.length;
  for (let i = 0; i < n; i++) store<u64>(dst + (<usize>i << 3), unchecked(order[i]).id);
  return n;
}

export function hasLobby(id: u64): bool {
  return lobbies.has(id);
}

/** -1 when the lobby is unknown. */
export function memberCount(lobbyId: u64): i32 {
  const lobby = findLobby(lobbyId);
  return lobby === null ? -1 : lobby.members.length;
}

export function copyMemberIds(lobbyId: u64, dst: usize): i32 {
  const lobby = findLobby(lobbyId);
  if (lobby === null) return -1;
  const members = lobby.members;
  const n = members.length;
  for (let i = 0; i < n; i++) store<u64>(dst + (<usize>i << 3), unchecked(members[i]).id);
  return n;
}

function findMember(lobbyId: u64, memberId: u64): Member | null {
  const lobby = findLobby(lobbyId);
  return lobby === null ? null : lobby.get(memberId);
}

/** 1 connected, 0 not, -1 unknown lobby or member. */
export function memberConnected(lobbyId: u64, memberId: u64): i32 {
  const member = findMember(lobbyId, memberId);
  return member === null ? -1 : member.connected ? 1 : 0;
}

/** The member's flags; 0 for an unknown member (check memberConnected first). */
export function memberFlags(lobbyId: u64, memberId: u64): u32 {
  const member = findMember(lobbyId, memberId);
  return member === null ? 0 : member.flags;
}

/** Byte length of the lobby's metadata JSON, -1 when unknown. */
export function lobbyMetadataLength(lobbyId: u64): i32 {
  const lobby = findLobby(lobbyId);
  return lobby === null ? -1 : lobby.meta.length;
}

export function copyLobbyMetadata(lobbyId: u64, dst: usize): i32 {
  const lobby = findLobby(lobbyId);
  if (lobby === null) return -1;
  const n = lobby.meta.length;
  memory.copy(dst, changetype<usize>(lobby.meta), <usize>n);
  return n;
}

export function memberMetadataLength(lobbyId: u64, memberId: u64): i32 {
  const member = findMember(lobbyId, memberId);
  return member === null ? -1 : member.meta.length;
}

export function copyMemberMetadata(lobbyId: u64, memberId: u64, dst: usize): i32 {
  const member = findMember(lobbyId, memberId);
  if (member === null) return -1;
  const n = member.meta.length;
  memory.copy(dst, changetype<usize>(member.meta), <usize>n);
  return n;
}
