/**
 * Codes that cross the WASM boundary. This file is the one TS source for them; the
 * AssemblyScript copy in assembly/generated/enums.ts is generated from it by
 * scripts/genEnums.ts (DESIGN.md convention 2) and a test checks that the two match.
 */

/** Kinds of the events that LobbyState.drainEvents() returns (docs/contracts.md). */
export const LobbyEventKind = {
  LobbyCreated: 1,
  LobbyDeleted: 2,
  LobbyUpdated: 3,
  MemberAdded: 4,
  MemberRemoved: 5,
  MemberUpdated: 6,
} as const;
export type LobbyEventKind = (typeof LobbyEventKind)[keyof typeof LobbyEventKind];
