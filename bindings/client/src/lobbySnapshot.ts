import { canonicalMetadataJson, type LobbyMemberSnapshot, type LobbySnapshot } from '@social-layer/core-wasm';
import type { Lobby, LobbyMember } from '@social-layer/protocol';

// Wire objects -> the snapshots core-wasm's LobbyState takes (docs/contracts.md). Metadata goes
// in as core-wasm's own canonical JSON so that the WASM side compares strings, never maps.

/**
 * `selfId`: the signed-in user. A live session is being read, so that member is connected
 * whatever the payload says. A READY built before the server counted the new session would
 * otherwise show us offline for a moment and fire two lobbyMemberUpdated about ourselves.
 */
export function memberSnapshot(member: LobbyMember, selfId: string | undefined): LobbyMemberSnapshot {
  return {
    id: member.id,
    connected: member.id === selfId || member.connected === true,
    flags: member.flags ?? 0,
    metadataJson: canonicalMetadataJson(member.metadata),
  };
}

export function lobbySnapshot(lobby: Lobby, selfId: string | undefined): LobbySnapshot {
  return {
    id: lobby.id,
    metadataJson: canonicalMetadataJson(lobby.metadata),
    members: (lobby.members ?? []).map((member) => memberSnapshot(member, selfId)),
  };
}
