import { canonicalMetadataJson, type LobbyMemberSnapshot, type LobbySnapshot } from '@social-layer/core-wasm';
import type { Lobby, LobbyMember } from '@social-layer/protocol';

// Wire objects -> the snapshots core-wasm's LobbyState takes (docs/contracts.md). Metadata goes
// in as core-wasm's own canonical JSON so that the WASM side compares strings, never maps.

export function memberSnapshot(member: LobbyMember): LobbyMemberSnapshot {
  return {
    id: member.id,
    connected: member.connected === true,
    flags: member.flags ?? 0,
    metadataJson: canonicalMetadataJson(member.metadata),
  };
}

export function lobbySnapshot(lobby: Lobby): LobbySnapshot {
  return {
    id: lobby.id,
    metadataJson: canonicalMetadataJson(lobby.metadata),
    members: (lobby.members ?? []).map(memberSnapshot),
  };
}
