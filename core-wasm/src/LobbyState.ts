import { LobbyEventKind } from './enums.ts';
import type { CoreExports } from './exports.ts';
import { instantiateCore } from './loader.ts';
import { ScratchBuffer } from './ScratchBuffer.ts';
import { fromU64, parseU64, toU64 } from './snowflake.ts';

/** A member as the lobby state stores it. */
export interface LobbyMemberSnapshot {
  /** The member's user ID. */
  id: string;
  /** Whether they are connected now. */
  connected: boolean;
  /** Member flags (bit 0: CanLinkLobby). */
  flags: number;
  /** Canonical JSON (keys sorted) of the member's metadata, or `'null'` (canonicalMetadataJson). */
  metadataJson: string;
}

/** A lobby with its full member list (READY, LOBBY_CREATE, LOBBY_UPDATE). */
export interface LobbySnapshot {
  /** The lobby ID. */
  id: string;
  /** The lobby metadata as canonical JSON. */
  metadataJson: string;
  /** Its members. */
  members: readonly LobbyMemberSnapshot[];
}

/** A change the lobby state machine made: what happened, to which lobby and member. */
export interface LobbyEvent {
  /** What happened. */
  kind: LobbyEventKind;
  /** To which lobby. */
  lobbyId: string;
  /** '0' for lobby events. */
  memberId: string;
}

const EVENT_SIZE = 24;
const MEMBER_FIXED = 8 + 1 + 4 + 4;

/** The canonical JSON that LobbyState compares: keys sorted, `'null'` for no metadata. */
export function canonicalMetadataJson(metadata: Readonly<Record<string, string>> | null | undefined): string {
  if (metadata == null) return 'null';
  const keys = Object.keys(metadata).sort();
  const sorted: Record<string, string> = {};
  for (const key of keys) sorted[key] = metadata[key] as string;
  return JSON.stringify(sorted);
}

/**
 * The lobby state machine of docs/contracts.md ("core-wasm lobby state"). Membership, the
 * connected flag, flags and metadata live in core.wasm; every mutation diffs its input against
 * the stored state and queues events there, which drainEvents() reads in one pass.
 * Each LobbyState owns its own instance of the module.
 */
export class LobbyState {
  private readonly scratch: ScratchBuffer;

  private constructor(private readonly core: CoreExports) {
    this.scratch = new ScratchBuffer(core);
  }

  /** A lobby state machine in a fresh core. */
  static async create(): Promise<LobbyState> {
    return new LobbyState(await instantiateCore());
  }

  /** The current user: never reported as added or removed; removing it deletes the lobby. */
  setSelf(userId: string): void {
    this.core.setSelf(toU64(userId));
  }

  /** Starts READY (or post-Resume) reconciliation: lobbies not upserted before endSync() go. */
  beginSync(): void {
    this.core.beginSync();
  }

  /** Ends a resync: lobbies not seen since `beginSync` are removed (with their events). */
  endSync(): void {
    this.core.endSync();
  }

  /** Adds or replaces a lobby from a snapshot; the differences come out as events. */
  upsertLobby(lobby: LobbySnapshot): void {
    const id = toU64(lobby.id);
    const members = lobby.members;
    let size = 8 + 4 + lobby.metadataJson.length * 3 + 4;
    for (const m of members) size += MEMBER_FIXED + m.metadataJson.length * 3;
    const memberIds = members.map((m) => toU64(m.id));

    const base = this.scratch.reserve(size);
    const view = this.scratch.view;
    let at = base;
    view.setBigUint64(at, id, true);
    at = this.writeString(at + 8, lobby.metadataJson);
    view.setUint32(at, members.length, true);
    at += 4;
    for (let i = 0; i < members.length; i++) at = this.writeMember(at, memberIds[i]!, members[i]!);
    this.core.upsertLobby(base, at - base);
  }

  /** The lobby is gone or we left it. */
  removeLobby(lobbyId: string): void {
    this.core.removeLobby(toU64(lobbyId));
  }

  /** LOBBY_MEMBER_ADD / LOBBY_MEMBER_UPDATE; ignored for a lobby this state does not hold. */
  upsertMember(lobbyId: string, member: LobbyMemberSnapshot): void {
    const lobby = toU64(lobbyId);
    const id = toU64(member.id);
    const base = this.scratch.reserve(MEMBER_FIXED + member.metadataJson.length * 3);
    const end = this.writeMember(base, id, member);
    this.core.upsertMember(lobby, base, end - base);
  }

  /** Removes a member from a lobby. */
  removeMember(lobbyId: string, memberId: string): void {
    this.core.removeMember(toU64(lobbyId), toU64(memberId));
  }

  /** Events queued since the last drain, in order; clears the queue. */
  drainEvents(): LobbyEvent[] {
    const count = this.core.eventCount();
    if (count === 0) return [];
    const base = this.core.eventsAddress();
    const view = this.scratch.view;
    const out = new Array<LobbyEvent>(count);
    for (let i = 0; i < count; i++) {
      const at = base + i * EVENT_SIZE;
      out[i] = {
        kind: view.getUint32(at + 16, true) as LobbyEventKind,
        lobbyId: view.getBigUint64(at, true).toString(),
        memberId: view.getBigUint64(at + 8, true).toString(),
      };
    }
    this.core.eventsClear();
    return out;
  }

  /** The lobbies held. */
  lobbyIds(): string[] {
    const count = this.core.lobbyCount();
    const base = this.scratch.reserve(count * 8);
    this.core.copyLobbyIds(base);
    return this.scratch.readU64List(base, count);
  }

  /** Whether this lobby is held. */
  has(lobbyId: string): boolean {
    const id = parseU64(lobbyId);
    return id !== undefined && this.core.hasLobby(id) !== 0;
  }

  /** Member ids in arrival order; empty for an unknown lobby. */
  memberIds(lobbyId: string): string[] {
    const id = parseU64(lobbyId);
    if (id === undefined) return [];
    const count = this.core.memberCount(id);
    if (count <= 0) return [];
    const base = this.scratch.reserve(count * 8);
    this.core.copyMemberIds(id, base);
    return this.scratch.readU64List(base, count);
  }

  /** undefined for an unknown lobby or member. */
  memberConnected(lobbyId: string, memberId: string): boolean | undefined {
    const ids = this.pair(lobbyId, memberId);
    if (!ids) return undefined;
    const state = this.core.memberConnected(ids[0], ids[1]);
    return state < 0 ? undefined : state === 1;
  }

  /** A member's flags, or undefined when not a member. */
  memberFlags(lobbyId: string, memberId: string): number | undefined {
    const ids = this.pair(lobbyId, memberId);
    if (!ids || this.core.memberConnected(ids[0], ids[1]) < 0) return undefined;
    return this.core.memberFlags(ids[0], ids[1]) >>> 0;
  }

  /** A lobby's metadata as canonical JSON, or undefined when not held. */
  lobbyMetadataJson(lobbyId: string): string | undefined {
    const id = parseU64(lobbyId);
    if (id === undefined) return undefined;
    const length = this.core.lobbyMetadataLength(id);
    if (length < 0) return undefined;
    const base = this.scratch.reserve(length);
    this.core.copyLobbyMetadata(id, base);
    return this.scratch.readUtf8(base, length);
  }

  /** A member's metadata as canonical JSON, or undefined when not a member. */
  memberMetadataJson(lobbyId: string, memberId: string): string | undefined {
    const ids = this.pair(lobbyId, memberId);
    if (!ids) return undefined;
    const length = this.core.memberMetadataLength(ids[0], ids[1]);
    if (length < 0) return undefined;
    const base = this.scratch.reserve(length);
    this.core.copyMemberMetadata(ids[0], ids[1], base);
    return this.scratch.readUtf8(base, length);
  }

  /** Forgets every lobby and queued event (no events). Self stays set. */
  reset(): void {
    this.core.reset();
  }

  /** The self id that setSelf() stored ('0' when unset). */
  self(): string {
    return fromU64(this.core.getSelf());
  }

  private pair(lobbyId: string, memberId: string): [bigint, bigint] | undefined {
    const lobby = parseU64(lobbyId);
    const member = parseU64(memberId);
    return lobby === undefined || member === undefined ? undefined : [lobby, member];
  }

  /** u32 length + UTF-8 bytes; returns the next offset. */
  private writeString(at: number, text: string): number {
    const written = this.scratch.writeUtf8(at + 4, text);
    this.scratch.view.setUint32(at, written, true);
    return at + 4 + written;
  }

  private writeMember(at: number, id: bigint, member: LobbyMemberSnapshot): number {
    const view = this.scratch.view;
    view.setBigUint64(at, id, true);
    view.setUint8(at + 8, member.connected ? 1 : 0);
    view.setUint32(at + 9, member.flags >>> 0, true);
    return this.writeString(at + 13, member.metadataJson);
  }
}
