/**
 * The raw exports of core.wasm (assembly/index.ts). Addresses and lengths are numbers; u64
 * values (snowflake IDs) are BigInts, which WebAssembly hands back signed: read them with
 * BigInt.asUintN(64, value). Only the wrappers in this folder touch these.
 */
export interface CoreExports {
  readonly memory: WebAssembly.Memory;

  // scratch.ts
  scratchReserve(size: number): number;
  scratchAddress(): number;
  scratchCapacity(): number;

  // lobby/events.ts
  eventsAddress(): number;
  eventCount(): number;
  eventsClear(): void;

  // lobby/LobbyStore.ts
  setSelf(id: bigint): void;
  getSelf(): bigint;
  beginSync(): void;
  endSync(): void;
  upsertLobby(ptr: number, len: number): void;
  removeLobby(id: bigint): number;
  upsertMember(lobbyId: bigint, ptr: number, len: number): number;
  removeMember(lobbyId: bigint, memberId: bigint): number;
  reset(): void;
  lobbyCount(): number;
  copyLobbyIds(dst: number): number;
  hasLobby(id: bigint): number;
  memberCount(lobbyId: bigint): number;
  copyMemberIds(lobbyId: bigint, dst: number): number;
  memberConnected(lobbyId: bigint, memberId: bigint): number;
  memberFlags(lobbyId: bigint, memberId: bigint): number;
  lobbyMetadataLength(lobbyId: bigint): number;
  copyLobbyMetadata(lobbyId: bigint, dst: number): number;
  memberMetadataLength(lobbyId: bigint, memberId: bigint): number;
  copyMemberMetadata(lobbyId: bigint, memberId: bigint, dst: number): number;
}
