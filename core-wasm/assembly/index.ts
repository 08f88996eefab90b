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

// ---- buffers --------------------------------------------------------------------------------
export { bufferAlloc, bufferFree, reservePool } from './buffers';
export { resultAddress } from './result';

// ---- crypto ---------------------------------------------------------------------------------
export {
  aeadCreate,
  aeadDestroy,
  aeadAlgorithm,
  aeadNonceLength,
  aeadSeal,
  aeadOpen,
  aeadSealTruncated,
  aeadOpenTruncated,
} from './crypto/aead';
export { hchacha20, chacha20Xor } from './crypto/chacha';
export { poly1305 } from './crypto/poly1305';
export { aesEncryptBlock } from './crypto/aes';

// ---- voice ----------------------------------------------------------------------------------
export { rtpWriteHeader, rtpWriteHeaderFull, rtpAddPadding, rtpsizeHeaderLength, rtpParse, seqDelta, timestampDelta } from './voice/rtp';
export { transportSeal, transportOpen } from './voice/transport';
export { daveEncrypt, daveDecrypt, daveParse, daveRangesAddress } from './voice/dave';
export { sha256, hmacSha256, hkdfExpandSha256 } from './crypto/sha256';

// ---- media ----------------------------------------------------------------------------------
export { jitterCreate, jitterDestroy, jitterReset, jitterPush, jitterPop, jitterDepth, jitterStat, jitterSetTarget } from './media/jitter';
export { mixF32, mixI16 } from './media/mixer';
export { vadCreate, vadConfigure, vadDestroy, vadProcessF32, vadProcessI16, vadLevel } from './media/vad';
export {
  resamplerCreate,
  resamplerDestroy,
  resamplerReset,
  resamplerInput,
  resamplerOutputLength,
  resamplerProcess,
} from './media/resampler';
