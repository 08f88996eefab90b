/**
 * DAVE's MLS parameters (protocols.md 4.1) and the message pieces this package builds and
 * checks itself on top of ts-mls's codecs: the external sender and its group extension,
 * external Add/Remove proposals, key package validation, welcome splitting.
 *
 * Why not ts-mls for these: ts-mls 1.6 encodes the external_senders extension as a single
 * ExternalSender instead of RFC 9420's `ExternalSender external_senders<V>` (what OpenMLS,
 * mlspp and so every DAVE client write), and its external-proposal helpers need a GroupInfo
 * the voice gateway does not have. So this file writes and verifies those messages from their
 * bytes, and the client hands the verified proposals to ts-mls's state by reference.
 */
import type { CiphersuiteImpl, Capabilities, Extension, KeyPackage, Lifetime, Proposal, Signature } from 'ts-mls';
import { getCiphersuiteFromName, getCiphersuiteImpl } from 'ts-mls';
import { decodeKeyPackage } from 'ts-mls/keyPackage.js';
import { decodeLeafNodeKeyPackage } from 'ts-mls/leafNode.js';
import { decodeFramedContent } from 'ts-mls/framedContent.js';
import { decodeMlsMessage } from 'ts-mls/message.js';
import { p256 } from '@noble/curves/nist.js';
import { isValidP256PublicKey, refHash, signWithLabel, verifyWithLabel } from './crypto.ts';
import { TlsReader, bytesEqual, concat, u16, u32, u64, varint, vector } from './tls.ts';

/** The MLS ciphersuite DAVE uses (RFC 9420 suite 2). */
export const DAVE_MLS_CIPHERSUITE = 'MLS_128_DHKEMP256_AES128GCM_SHA256_P256' as const;
/** The RFC 9420 number of `DAVE_MLS_CIPHERSUITE`. */
export const DAVE_MLS_CIPHERSUITE_ID = 2;
/** MLS-Exporter label of the per-sender media base secret (protocols.md 4.5). */
export const DAVE_MEDIA_KEY_LABEL = 'Discord Secure Frames v0';
export const DAVE_MEDIA_KEY_BYTES = 16;

const MLS10 = 1;
const WIRE_PUBLIC_MESSAGE = 1;
const WIRE_KEY_PACKAGE = 5;
const SENDER_EXTERNAL = 2;
const CONTENT_PROPOSAL = 2;
const PROPOSAL_ADD = 1;
const PROPOSAL_REMOVE = 3;
const CREDENTIAL_BASIC = 1;
const U64_MAX = 2n ** 64n - 1n;

/** Leaf capabilities of DAVE v1: MLS 1.0, suite 2, basic credentials, nothing else. */
export const DAVE_CAPABILITIES: Capabilities = {
  versions: ['mls10'],
  ciphersuites: [DAVE_MLS_CIPHERSUITE],
  extensions: [],
  proposals: [],
  credentials: ['basic'],
};

/** Key packages must span all time (not_before 0, not_after 2^64-1). */
export const DAVE_LIFETIME: Lifetime = { notBefore: 0n, notAfter: U64_MAX };

/** Raised for input that breaks the protocol (garbage, wrong identity, bad signature). */
export class DaveProtocolError extends Error {
  /** `DaveProtocolError`. */
  override name = 'DaveProtocolError';
}

// ---------------------------------------------------------------------------------------------
// Identities

/** A snowflake as the 8-byte big-endian credential identity (and group id). */
export function snowflakeBytes(id: string, littleEndian = false): Uint8Array {
  if (!/^\d{1,20}$/.test(id)) throw new DaveProtocolError(`not a snowflake: ${id}`);
  const value = BigInt(id);
  if (value > U64_MAX) throw new DaveProtocolError(`snowflake out of range: ${id}`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, littleEndian);
  return out;
}

/** The user id an 8-byte basic credential names, or undefined. */
export function identityToUserId(identity: Uint8Array): string | undefined {
  if (identity.length !== 8) return undefined;
  return new DataView(identity.buffer, identity.byteOffset, 8).getBigUint64(0, false).toString();
}

// ---------------------------------------------------------------------------------------------
// Ciphersuite

let suite: Promise<CiphersuiteImpl> | undefined;

/**
 * ts-mls's suite 2 with signing done by @noble/curves synchronously and low-S (ts-mls signs
 * high-S half the time; some verifiers insist on low S).
 */
export function daveCiphersuite(): Promise<CiphersuiteImpl> {
  suite ??= getCiphersuiteImpl(getCiphersuiteFromName(DAVE_MLS_CIPHERSUITE)).then((impl) => {
    const signature: Signature = {
      async sign(signKey, message) {
        return p256.sign(message, signKey, { prehash: true, format: 'der', lowS: true });
      },
      async verify(publicKey, message, sig) {
        try {
          return p256.verify(sig, message, publicKey, { prehash: true, format: 'der', lowS: false });
        } catch {
          return false;
        }
      },
      async keygen() {
        const signKey = p256.utils.randomSecretKey();
        return { signKey, publicKey: p256.getPublicKey(signKey, false) };
      },
    };
    return { ...impl, signature };
  });
  return suite;
}

// ---------------------------------------------------------------------------------------------
// External sender (op 25) and the external_senders group extension

/** The voice gateway's external sender (op 25): its signature key and identity. */
export interface ExternalSenderInfo {
  /** The external sender's signature public key. */
  signatureKey: Uint8Array;
  /** The external sender's basic-credential identity. */
  identity: Uint8Array;
  /** The encoded ExternalSender (the op 25 body). */
  bytes: Uint8Array;
}

export function encodeExternalSender(signatureKey: Uint8Array, identity: Uint8Array): Uint8Array {
  return concat(vector(signatureKey), u16(CREDENTIAL_BASIC), vector(identity));
}

/** Parses an op 25 body (an MLS ExternalSender); throws `DaveProtocolError` when it is malformed. */
export function parseExternalSender(bytes: Uint8Array): ExternalSenderInfo {
  try {
    const r = new TlsReader(bytes);
    const signatureKey = r.vector();
    if (r.u16() !== CREDENTIAL_BASIC) throw new DaveProtocolError('external sender credential must be basic');
    const identity = r.vector();
    if (r.remaining !== 0) throw new DaveProtocolError('trailing bytes after external sender');
    if (!isValidP256PublicKey(signatureKey)) throw new DaveProtocolError('external sender key is not a P-256 point');
    return { signatureKey, identity, bytes: bytes.slice() };
  } catch (e) {
    throw asProtocolError(e, 'malformed external sender');
  }
}

/** RFC 9420 12.1.8.1: `ExternalSender external_senders<V>` with the one voice gateway entry. */
export function externalSendersExtension(externalSender: Uint8Array): Extension {
  return { extensionType: 'external_senders', extensionData: vector(externalSender) };
}

/** The encoded ExternalSender entries of an external_senders extension. */
export function parseExternalSenders(extensionData: Uint8Array): Uint8Array[] {
  const r = new TlsReader(extensionData);
  const list = r.subVector();
  if (r.remaining !== 0) throw new DaveProtocolError('trailing bytes in external_senders');
  const out: Uint8Array[] = [];
  while (list.remaining > 0) {
    const start = list.offset;
    list.vector();
    list.u16();
    list.vector();
    out.push(list.bytes.slice(start, list.offset));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Key packages (op 26)

/** A member's key package (op 26) that passed the checks, with the parts the delivery service uses. */
export interface ValidatedKeyPackage {
  /** The KeyPackage as received (without an MLSMessage wrapper). */
  bytes: Uint8Array;
  /** The parsed key package. */
  keyPackage: KeyPackage;
  /** KeyPackageRef = RefHash("MLS 1.0 KeyPackage Reference", bytes). */
  ref: Uint8Array;
  /** The user its credential names. */
  userId: string;
  /** Its leaf's signature public key. */
  signatureKey: Uint8Array;
}

/**
 * Validates a key package as the voice gateway must (protocols.md 4.3): MLS 1.0, suite 2, a
 * basic credential naming `expectedUserId` as 8-byte big-endian, lifetime 0..2^64-1, a valid
 * leaf signature and key package signature. Accepts the bare KeyPackage (what libdave and
 * davey send) and the MLSMessage-wrapped form (what the DAVE protocol text shows).
 */
export function validateKeyPackage(body: Uint8Array, expectedUserId?: string): ValidatedKeyPackage {
  try {
    let bytes = body;
    if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] === MLS10 && bytes[2] === 0 && bytes[3] === WIRE_KEY_PACKAGE) {
      bytes = bytes.subarray(4);
    }
    const r = new TlsReader(bytes);
    if (r.u16() !== MLS10) throw new DaveProtocolError('key package is not MLS 1.0');
    if (r.u16() !== DAVE_MLS_CIPHERSUITE_ID) throw new DaveProtocolError('key package ciphersuite is not 2');
    const initKey = r.vector();
    const leafStart = r.offset;
    const leafDecoded = decodeLeafNodeKeyPackage(bytes, leafStart);
    if (!leafDecoded) throw new DaveProtocolError('malformed leaf node');
    const [leaf, leafLength] = leafDecoded;
    const decoded = decodeKeyPackage(bytes, 0);
    if (!decoded || decoded[1] !== bytes.length) throw new DaveProtocolError('malformed key package');
    const keyPackage = decoded[0];
    const leafEnd = leafStart + leafLength;
    const leafTbs = bytes.subarray(leafStart, leafEnd - varint(leaf.signature.length).length - leaf.signature.length);
    // KeyPackageTBS ends where its signature vector starts (the last field).
    const tbsEnd = bytes.length - varint(keyPackage.signature.length).length - keyPackage.signature.length;
    if (leaf.credential.credentialType !== 'basic') throw new DaveProtocolError('credential must be basic');
    const userId = identityToUserId(leaf.credential.identity);
    if (userId === undefined) throw new DaveProtocolError('credential identity must be 8 bytes');
    if (expectedUserId !== undefined && userId !== expectedUserId) {
      throw new DaveProtocolError(`credential names user ${userId}, not ${expectedUserId}`);
    }
    if (leaf.lifetime.notBefore !== 0n || leaf.lifetime.notAfter !== U64_MAX) {
      throw new DaveProtocolError('key package lifetime must be 0..2^64-1');
    }
    if (!isValidP256PublicKey(leaf.signaturePublicKey)) throw new DaveProtocolError('signature key is not a P-256 point');
    if (!isValidP256PublicKey(initKey) || !isValidP256PublicKey(leaf.hpkePublicKey)) {
      throw new DaveProtocolError('HPKE key is not a P-256 point');
    }
    if (bytesEqual(initKey, leaf.hpkePublicKey)) throw new DaveProtocolError('init key equals encryption key');
    if (!verifyWithLabel(leaf.signaturePublicKey, 'LeafNodeTBS', leafTbs, leaf.signature)) {
      throw new DaveProtocolError('leaf node signature does not verify');
    }
    if (!verifyWithLabel(leaf.signaturePublicKey, 'KeyPackageTBS', bytes.subarray(0, tbsEnd), keyPackage.signature)) {
      throw new DaveProtocolError('key package signature does not verify');
    }
    const copy = bytes.slice();
    return {
      bytes: copy,
      keyPackage,
      ref: refHash('MLS 1.0 KeyPackage Reference', copy),
      userId,
      signatureKey: leaf.signaturePublicKey,
    };
  } catch (e) {
    throw asProtocolError(e, 'malformed key package');
  }
}

// ---------------------------------------------------------------------------------------------
// External proposals (op 27)

export interface ExternalProposal {
  /** The MLSMessage (PublicMessage) bytes. */
  message: Uint8Array;
  /** ProposalRef = RefHash("MLS 1.0 Proposal Reference", AuthenticatedContent). */
  ref: Uint8Array;
}

export function addProposalBody(keyPackageBytes: Uint8Array): Uint8Array {
  return concat(u16(PROPOSAL_ADD), keyPackageBytes);
}

export function removeProposalBody(leafIndex: number): Uint8Array {
  return concat(u16(PROPOSAL_REMOVE), u32(leafIndex));
}

/**
 * A proposal from external sender 0 as a PublicMessage: FramedContentTBS for an external
 * sender carries no GroupContext, so group id and epoch are all the gateway needs.
 */
export function buildExternalProposal(
  groupId: Uint8Array,
  epoch: bigint,
  proposalBody: Uint8Array,
  signingKey: Uint8Array,
): ExternalProposal {
  const framedContent = concat(
    vector(groupId),
    u64(epoch),
    Uint8Array.of(SENDER_EXTERNAL),
    u32(0),
    vector(new Uint8Array(0)),
    Uint8Array.of(CONTENT_PROPOSAL),
    proposalBody,
  );
  const tbs = concat(u16(MLS10), u16(WIRE_PUBLIC_MESSAGE), framedContent);
  const auth = vector(signWithLabel(signingKey, 'FramedContentTBS', tbs));
  const authenticatedContent = concat(u16(WIRE_PUBLIC_MESSAGE), framedContent, auth);
  return {
    message: concat(u16(MLS10), authenticatedContent),
    ref: refHash('MLS 1.0 Proposal Reference', authenticatedContent),
  };
}

export interface VerifiedExternalProposal {
  proposal: Proposal;
  groupId: Uint8Array;
  epoch: bigint;
  ref: Uint8Array;
}

/**
 * Parses and verifies one external proposal MLSMessage against the external sender's key,
 * over the received bytes. Throws DaveProtocolError when anything is off.
 */
export function verifyExternalProposal(message: Uint8Array, externalSenderKey: Uint8Array): VerifiedExternalProposal {
  try {
    const r = new TlsReader(message);
    if (r.u16() !== MLS10) throw new DaveProtocolError('proposal is not MLS 1.0');
    if (r.u16() !== WIRE_PUBLIC_MESSAGE) throw new DaveProtocolError('proposal must be a PublicMessage');
    const decoded = decodeFramedContent(message, 4);
    if (!decoded) throw new DaveProtocolError('malformed framed content');
    const [content, length] = decoded;
    const framedContent = message.subarray(4, 4 + length);
    r.offset = 4 + length;
    const signature = r.vector();
    if (r.remaining !== 0) throw new DaveProtocolError('trailing bytes after external proposal');
    if (content.sender.senderType !== 'external' || content.sender.senderIndex !== 0) {
      throw new DaveProtocolError('proposal must come from external sender 0');
    }
    if (content.contentType !== 'proposal') throw new DaveProtocolError('not a proposal');
    const tbs = concat(u16(MLS10), u16(WIRE_PUBLIC_MESSAGE), framedContent);
    if (!verifyWithLabel(externalSenderKey, 'FramedContentTBS', tbs, signature)) {
      throw new DaveProtocolError('external proposal signature does not verify');
    }
    return {
      proposal: content.proposal,
      groupId: content.groupId,
      epoch: content.epoch,
      ref: refHash('MLS 1.0 Proposal Reference', message.subarray(2)),
    };
  } catch (e) {
    throw asProtocolError(e, 'malformed external proposal');
  }
}

/** op 27 body: `u8 operation_type` then `MLSMessage proposal_messages<V>` or `ProposalRef proposal_refs<V>`. */
export function encodeProposalsAppend(messages: readonly Uint8Array[]): Uint8Array {
  return concat(Uint8Array.of(0), vector(concat(...messages)));
}

export function encodeProposalsRevoke(refs: readonly Uint8Array[]): Uint8Array {
  return concat(Uint8Array.of(1), vector(concat(...refs.map((ref) => vector(ref)))));
}

export type ParsedProposals = { revoke: false; messages: Uint8Array[] } | { revoke: true; refs: Uint8Array[] };

export function parseProposals(body: Uint8Array): ParsedProposals {
  try {
    const r = new TlsReader(body);
    const op = r.u8();
    if (op > 1) throw new DaveProtocolError(`unknown proposals operation ${op}`);
    const list = r.subVector();
    if (r.remaining !== 0) throw new DaveProtocolError('trailing bytes after proposals');
    if (op === 1) {
      const refs: Uint8Array[] = [];
      while (list.remaining > 0) refs.push(list.vector().slice());
      return { revoke: true, refs };
    }
    const messages: Uint8Array[] = [];
    while (list.remaining > 0) {
      const decoded = decodeMlsMessage(body.subarray(list.offset, list.end), 0);
      if (!decoded) throw new DaveProtocolError('malformed proposal message');
      messages.push(list.take(decoded[1]).slice());
    }
    return { revoke: false, messages };
  } catch (e) {
    throw asProtocolError(e, 'malformed proposals');
  }
}

// ---------------------------------------------------------------------------------------------
// Welcome (op 28 tail, op 30)

export interface ParsedWelcome {
  cipherSuite: number;
  /** Each EncryptedGroupSecrets entry as received, with the KeyPackageRef it is for. */
  secrets: { newMember: Uint8Array; bytes: Uint8Array }[];
  encryptedGroupInfo: Uint8Array;
}

export function parseWelcome(bytes: Uint8Array): ParsedWelcome {
  const r = new TlsReader(bytes);
  const cipherSuite = r.u16();
  const list = r.subVector();
  const secrets: ParsedWelcome['secrets'] = [];
  while (list.remaining > 0) {
    const start = list.offset;
    const newMember = list.vector();
    list.vector();
    list.vector();
    secrets.push({ newMember, bytes: bytes.subarray(start, list.offset) });
  }
  const encryptedGroupInfo = r.vector();
  if (r.remaining !== 0) throw new DaveProtocolError('trailing bytes after welcome');
  return { cipherSuite, secrets, encryptedGroupInfo };
}

/** The welcome for one joiner: only the group secrets encrypted to its key package. */
export function welcomeFor(welcome: ParsedWelcome, keyPackageRef: Uint8Array): Uint8Array | undefined {
  const entry = welcome.secrets.find((s) => bytesEqual(s.newMember, keyPackageRef));
  if (!entry) return undefined;
  return concat(u16(welcome.cipherSuite), vector(entry.bytes), vector(welcome.encryptedGroupInfo));
}

// ---------------------------------------------------------------------------------------------

/**
 * A displayable code (DAVE "Displayable Codes"): per group of `groupSize` digits, `groupSize`
 * bytes read big-endian, mod 10^groupSize, zero-padded. The voice privacy code is
 * `displayableCode(epochAuthenticator, 30, 5)`.
 */
export function displayableCode(data: Uint8Array, length: number, groupSize: number): string {
  if (data.length < length || length % groupSize !== 0 || groupSize > 8) throw new RangeError('bad displayable code size');
  let out = '';
  const modulus = 10n ** BigInt(groupSize);
  for (let i = 0; i < length; i += groupSize) {
    let value = 0n;
    for (let j = 0; j < groupSize; j++) value = (value << 8n) | BigInt(data[i + j]!);
    out += (value % modulus).toString().padStart(groupSize, '0');
  }
  return out;
}

function asProtocolError(e: unknown, message: string): DaveProtocolError {
  if (e instanceof DaveProtocolError) return e;
  return new DaveProtocolError(`${message}: ${e instanceof Error ? e.message : String(e)}`);
}
