// core.wasm exports. One import namespace (`env`: abort only). Every export is a plain number or
// u64 function over linear memory; the typed wrappers live in core-wasm/src.
export { scratchReserve, scratchAddress, scratchCapacity } from './scratch';
export { eventsAddress, eventCount, eventsClear } from './lobby/events';
export {
  setSelf,
  getSelf,
  beginSync,
  endSync,
  upsertLobby,
  removeLobby,
  upsertMember,
  removeMember,
  reset,
  lobbyCount,
  copyLobbyIds,
  hasLobby,
  memberCount,
  copyMemberIds,
  memberConnected,
  memberFlags,
  lobbyMetadataLength,
  copyLobbyMetadata,
  memberMetadataLength,
  copyMemberMetadata,
} from './lobby/LobbyStore';
