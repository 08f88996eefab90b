/** @social-layer/core-wasm: the typed surface over core.wasm. */
export { LobbyEventKind } from './enums.ts';
export {
  LobbyState,
  canonicalMetadataJson,
  type LobbyEvent,
  type LobbyMemberSnapshot,
  type LobbySnapshot,
} from './LobbyState.ts';
export { instantiateCore, coreModule, CoreAbortError } from './loader.ts';
export type { CoreExports } from './exports.ts';
export { parseU64, toU64, fromU64 } from './snowflake.ts';
