/**
 * The raw exports of core.wasm (assembly/index.ts). Addresses and lengths are numbers; u64
 * values (snowflake IDs) are BigInts, which WebAssembly hands back signed: read them with
 * BigInt.asUintN(64, value). Only the wrappers in this folder touch these.
 *
 * @internal The ABI between this package's wrappers and core.wasm, left out of the SDK reference.
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

  // buffers.ts, result.ts
  bufferAlloc(size: number): number;
  bufferFree(ptr: number): void;
  reservePool(bytes: number): void;
  resultAddress(): number;

  // crypto
  aeadCreate(algorithm: number, key: number): number;
  aeadDestroy(ctx: number): void;
  aeadAlgorithm(ctx: number): number;
  aeadNonceLength(algorithm: number): number;
  aeadSeal(ctx: number, nonce: number, ad: number, adLen: number, src: number, len: number, dst: number, tag: number): void;
  aeadOpen(ctx: number, nonce: number, ad: number, adLen: number, src: number, len: number, dst: number, tag: number): number;
  aeadSealTruncated(ctx: number, nonce: number, ad: number, adLen: number, src: number, len: number, dst: number, tag: number, tagLen: number): void;
  aeadOpenTruncated(ctx: number, nonce: number, ad: number, adLen: number, src: number, len: number, dst: number, tag: number, tagLen: number): number;
  hchacha20(key: number, nonce16: number, out: number): void;
  chacha20Xor(key: number, nonce: number, counter: number, src: number, dst: number, len: number): void;
  poly1305(key: number, msg: number, len: number, out: number): void;
  aesEncryptBlock(rk: number, src: number, dst: number): void;
  sha256(src: number, len: number, out: number): void;
  hmacSha256(key: number, keyLen: number, msg: number, msgLen: number, out: number): void;
  hkdfExpandSha256(prk: number, prkLen: number, info: number, infoLen: number, out: number, outLen: number): number;

  // voice
  rtpWriteHeader(dst: number, cap: number, marker: number, payloadType: number, seq: number, timestamp: number, ssrc: number): number;
  rtpWriteHeaderFull(
    dst: number, cap: number, marker: number, payloadType: number, seq: number, timestamp: number, ssrc: number,
    csrcs: number, csrcCount: number, extProfile: number, extWords: number,
  ): number;
  rtpAddPadding(pkt: number, len: number, cap: number, count: number): number;
  rtpsizeHeaderLength(pkt: number, len: number): number;
  rtpParse(pkt: number, len: number): number;
  seqDelta(a: number, b: number): number;
  timestampDelta(a: number, b: number): number;
  transportSeal(ctx: number, pkt: number, len: number, cap: number, nonce: number): number;
  transportOpen(ctx: number, pkt: number, len: number): number;
  daveEncrypt(ctx: number, src: number, len: number, dst: number, cap: number, nonce: number, ranges: number, rangeCount: number): number;
  daveDecrypt(ctx: number, src: number, len: number, dst: number, cap: number): number;
  daveParse(src: number, len: number): number;
  daveRangesAddress(): number;

  // media
  jitterCreate(capacity: number, slotBytes: number, target: number): number;
  jitterDestroy(ctx: number): void;
  jitterReset(ctx: number): void;
  jitterPush(ctx: number, seq: number, timestamp: number, src: number, len: number): number;
  jitterPop(ctx: number): number;
  jitterDepth(ctx: number): number;
  jitterSetTarget(ctx: number, target: number): void;
  jitterStat(ctx: number, which: number): number;
  mixF32(out: number, inputs: number, gains: number, count: number, samples: number): void;
  mixI16(out: number, inputs: number, gains: number, count: number, samples: number): number;
  vadCreate(thresholdDb: number, hangoverFrames: number): number;
  vadConfigure(ctx: number, thresholdDb: number, hangoverFrames: number): void;
  vadDestroy(ctx: number): void;
  vadProcessF32(ctx: number, src: number, samples: number): number;
  vadProcessI16(ctx: number, src: number, samples: number): number;
  vadLevel(ctx: number): number;
  resamplerCreate(inRate: number, outRate: number, maxIn: number): number;
  resamplerDestroy(ctx: number): void;
  resamplerReset(ctx: number): void;
  resamplerInput(ctx: number): number;
  resamplerOutputLength(ctx: number, inputSamples: number): number;
  resamplerProcess(ctx: number, inputSamples: number, dst: number, dstCap: number): number;
}
