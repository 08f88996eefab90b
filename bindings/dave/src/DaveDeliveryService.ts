import { DAVE_PROTOCOL_VERSION, VoiceOpcode } from '@social-layer/protocol';
import { decodeMlsMessage } from 'ts-mls/message.js';
import { generateSignatureKeyPair, type SignatureKeyPair } from './crypto.ts';
import {
  DaveProtocolError,
  addProposalBody,
  buildExternalProposal,
  encodeExternalSender,
  encodeProposalsAppend,
  encodeProposalsRevoke,
  identityToUserId,
  parseWelcome,
  removeProposalBody,
  snowflakeBytes,
  validateKeyPackage,
  welcomeFor,
  type ParsedWelcome,
  type ValidatedKeyPackage,
} from './mls.ts';
import { bytesEqual, concat, toHex, u16 } from './tls.ts';
import type {
  CommitRejection,
  DaveDeliveryServiceOptions,
  DaveGroupView,
  DaveOutput,
  DaveOutputMessage,
  InFlightProposal,
  Leaf,
  Participant,
  Transition,
} from './deliveryTypes.ts';

export type { CommitRejection, DaveDeliveryServiceOptions, DaveGroupView, DaveOutput, DaveOutputMessage };

const EXTERNAL_SENDER_IDENTITY = new Uint8Array(8);

/**
 * The voice gateway's DAVE duties for one call (protocols.md 4.3, DAVE "Delivery Service"): the
 * external sender, key package validation, external Add/Remove proposals, the first valid
 * commit per epoch, welcomes, transitions. It keeps the MLS group context the gateway needs
 * (group id, epoch, suite 2) and each member's leaf index and signature key, never a secret.
 *
 * Every method takes bytes or ids and returns what to send; nothing here does I/O, and nothing
 * throws on what a client sent. Input that breaks the protocol (garbage, a key package for
 * someone else, a bad signature) returns [] and sets `lastError`; commits that merely lost a
 * race or are stale return [] and set `lastRejection`. Either way nothing changes.
 */
export class DaveDeliveryService {
  /** The MLS group ID: the call ID as 8 bytes. */
  readonly groupId: Uint8Array;
  private readonly signer: SignatureKeyPair;
  private readonly externalSender: Uint8Array;
  private readonly timeoutMs: number;
  private readonly stallTimeoutMs: number;
  private readonly now: () => number;

  private readonly participants = new Map<string, Participant>();
  private established = false;
  private epochValue = 0n;
  private leaves: (Leaf | undefined)[] = [];
  private proposals: InFlightProposal[] = [];
  private readonly transitions = new Map<number, Transition>();
  private lastTransitionId = 0;
  /** Why the last commit was dropped, if it was (races and stale epochs: nobody's fault). */
  lastRejection: CommitRejection | undefined;
  /**
   * What was wrong with the last key package or commit, if it broke the protocol (garbage, a
   * credential naming someone else, a bad signature, an unknown user). Nothing changed; the
   * gateway may close that connection (4020).
   */
  lastError: DaveProtocolError | undefined;
  /** How often the watchdog re-created a group whose proposals nobody committed. */
  stalls = 0;

  private constructor(
    /** The call (its lobby's snowflake). */
    readonly callId: string,
    options: DaveDeliveryServiceOptions,
  ) {
    this.groupId = snowflakeBytes(callId);
    this.signer = generateSignatureKeyPair();
    this.externalSender = encodeExternalSender(this.signer.publicKey, EXTERNAL_SENDER_IDENTITY);
    this.timeoutMs = options.transitionTimeoutMs ?? 2000;
    this.stallTimeoutMs = options.stallTimeoutMs ?? 10_000;
    this.now = options.now ?? (() => Date.now());
  }

  /** A delivery service with a fresh P-256 external-sender key pair for the call `callId` (a snowflake: the MLS group id). */
  static async create(callId: string, options: DaveDeliveryServiceOptions = {}): Promise<DaveDeliveryService> {
    return new DaveDeliveryService(callId, options);
  }

  /** The op 25 body (ExternalSender: signature key and basic credential). Send it to each member after op 4. */
  externalSenderPayload(): Uint8Array {
    return this.externalSender.slice();
  }

  /** The external sender's public key (65-byte SEC1 point). */
  get externalSenderKey(): Uint8Array {
    return this.signer.publicKey.slice();
  }

  /** The group's current epoch (0 while no group is established). */
  get epoch(): number {
    return Number(this.epochValue);
  }

  /** Whether a group has been established by a first commit (false again after a sole-member reset). */
  get isEstablished(): boolean {
    return this.established;
  }

  /** User ids of the group's members by leaf index (empty while none is established). */
  members(): string[] {
    return this.leaves.filter((l): l is Leaf => l !== undefined).map((l) => l.userId);
  }

  /** Users connected to the call who are not (yet) members of the group. */
  pendingMembers(): string[] {
    const members = new Set(this.members());
    return [...this.participants.keys()].filter((id) => !members.has(id));
  }

  /** A plain-data view of the whole state (for logs and tests): equal views mean nothing changed. */
  inspect(): DaveGroupView {
    return {
      established: this.established,
      epoch: this.epoch,
      leaves: this.leaves.map((l) => l?.userId ?? null),
      proposals: this.proposals.map((p) => ({ kind: p.kind, userId: p.userId, ref: p.refHex, recipients: [...p.recipients] })),
      keyPackages: [...this.participants].filter(([, p]) => p.keyPackage).map(([id]) => id),
      connected: [...this.participants.keys()],
      transitions: [...this.transitions.values()].map((t) => ({ id: t.id, waiting: [...t.waiting], deadline: t.deadline })),
    };
  }

  /** Transition ids sent but not executed yet. */
  pendingTransitions(): number[] {
    return [...this.transitions.keys()];
  }

  /** A user passed Identify (and was announced with op 11). */
  memberConnected(userId: string): void {
    if (!/^\d{1,20}$/.test(userId) || BigInt(userId) >= 2n ** 64n) return;
    if (!this.participants.has(userId)) this.participants.set(userId, {});
  }

  /**
   * op 26: validates the key package and proposes adding its owner. The output starts with op
   * 25 for the sender, so it holds the external sender before any proposal reaches it whatever
   * the order of op 25 and op 4 was (@discordjs/voice drops binary messages before op 4).
   */
  keyPackage(userId: string, body: Uint8Array): DaveOutput {
    return this.guard(() => this.acceptKeyPackage(userId, body));
  }

  private acceptKeyPackage(userId: string, body: Uint8Array): DaveOutput {
    const participant = this.participants.get(userId);
    if (!participant) throw new DaveProtocolError(`user ${userId} is not connected`);
    const keyPackage = validateKeyPackage(body, userId);
    if (this.proposals.some((p) => p.kind === 'add' && bytesEqual(p.keyPackage!.ref, keyPackage.ref))) return [];
    const out: DaveOutput = [{ to: [userId], op: VoiceOpcode.DaveMlsExternalSender, binary: this.externalSenderPayload() }];
    // A member sending a key package has reset (op 31 or its own recovery): remove the stale leaf.
    if (this.established && this.leafIndexOf(userId) >= 0 && !this.hasRemoveFor(userId)) {
      out.push(...this.proposeRemove(userId));
    }
    const previous = this.proposals.find((p) => p.kind === 'add' && p.userId === userId);
    if (previous) out.push(...this.revoke([previous]));
    participant.keyPackage = keyPackage;
    out.push(...this.proposeAdd(userId, keyPackage));
    return out;
  }

  /**
   * op 28: the commit (and welcome) of `userId`. The first valid commit of the epoch goes out
   * as op 29 to the members and op 30 to each joiner; anything else returns [].
   */
  commitWelcome(userId: string, body: Uint8Array): DaveOutput {
    return this.guard(() => this.acceptCommit(userId, body));
  }

  private acceptCommit(userId: string, body: Uint8Array): DaveOutput {
    if (!this.participants.has(userId)) throw new DaveProtocolError(`user ${userId} is not connected`);
    const parsed = parseCommitWelcome(body);
    if (!bytesEqual(parsed.groupId, this.groupId)) throw new DaveProtocolError('commit is for another group');
    if (parsed.epoch !== this.epochValue) return this.reject('wrong-epoch');

    let committerKey: Uint8Array;
    let expected: InFlightProposal[];
    if (this.established) {
      const leaf = this.leaves[parsed.senderLeafIndex];
      if (!leaf || leaf.userId !== userId) return this.reject('not-a-member');
      committerKey = leaf.signatureKey;
      expected = this.proposals;
    } else {
      // Group creation: the committer's local group has itself at leaf 0, built from the key
      // package it sent; it commits everyone else's Add (it never sees its own).
      const keyPackage = this.participants.get(userId)!.keyPackage;
      if (!keyPackage || parsed.senderLeafIndex !== 0) return this.reject('not-a-member');
      committerKey = keyPackage.signatureKey;
      expected = this.proposals.filter((p) => !(p.kind === 'add' && p.userId === userId));
    }
    if (expected.length === 0) return this.reject('nothing-to-commit');

    // Exactly the unrevoked proposals of the epoch, each once, by reference only.
    const byRef = new Map(expected.map((p) => [p.refHex, p]));
    const ordered: InFlightProposal[] = [];
    for (const ref of parsed.refs) {
      const p = ref === undefined ? undefined : byRef.get(toHex(ref));
      if (!p) return this.reject('proposals-mismatch');
      byRef.delete(p.refHex);
      ordered.push(p);
    }
    if (byRef.size > 0) return this.reject('proposals-mismatch');

    if (parsed.path) {
      const identity = identityToUserId(parsed.path.identity);
      if (identity !== userId || !bytesEqual(parsed.path.signatureKey, committerKey)) return this.reject('leaf-changed');
    } else if (ordered.some((p) => p.kind === 'remove')) {
      return this.reject('path-missing');
    }
    const adds = ordered.filter((p) => p.kind === 'add');
    const welcomes = new Map<string, Uint8Array>();
    if (adds.length > 0) {
      if (!parsed.welcome) return this.reject('welcome-missing');
      for (const add of adds) {
        const welcome = welcomeFor(parsed.welcome, add.keyPackage!.ref);
        if (!welcome) return this.reject('welcome-missing');
        welcomes.set(add.userId, welcome);
      }
    }

    // Valid: this commit defines the next epoch.
    const previousMembers = this.established ? this.members() : [userId];
    const leaves = this.established ? this.leaves.slice() : [{ userId, signatureKey: committerKey }];
    for (const p of ordered) if (p.kind === 'remove') leaves[p.leafIndex!] = undefined;
    for (const p of adds) {
      const blank = leaves.indexOf(undefined);
      const leaf = { userId: p.userId, signatureKey: p.keyPackage!.signatureKey };
      if (blank >= 0) leaves[blank] = leaf;
      else leaves.push(leaf);
    }
    while (leaves.length > 0 && leaves[leaves.length - 1] === undefined) leaves.pop();
    this.leaves = leaves;
    this.established = true;
    this.epochValue += 1n;
    this.proposals = [];
    // The committer's key package (group creation) and the joiners' ones are used up.
    this.participants.get(userId)!.keyPackage = undefined;
    for (const p of adds) {
      const participant = this.participants.get(p.userId);
      if (participant) participant.keyPackage = undefined;
    }

    const transitionId = this.nextTransitionId();
    const members = new Set(this.members());
    // The commit goes to members who stay; whoever is (re-)added gets only a welcome.
    const removed = new Set(ordered.filter((p) => p.kind === 'remove').map((p) => p.userId));
    const commitTo = previousMembers.filter((id) => !removed.has(id) && members.has(id) && this.participants.has(id));
    const joiners = [...welcomes.keys()].filter((id) => this.participants.has(id));
    const out: DaveOutput = [];
    if (commitTo.length > 0) {
      out.push({
        to: commitTo,
        op: VoiceOpcode.DaveMlsAnnounceCommitTransition,
        binary: concat(u16(transitionId), parsed.commit),
      });
    }
    for (const joiner of joiners) {
      out.push({
        to: [joiner],
        op: VoiceOpcode.DaveMlsWelcome,
        binary: concat(u16(transitionId), welcomes.get(joiner)!),
      });
    }
    const waiting = new Set([...commitTo, ...joiners]);
    this.transitions.set(transitionId, { id: transitionId, waiting, deadline: this.now() + this.timeoutMs });
    if (waiting.size === 0) out.push(...this.execute(transitionId));
    // Users whose key packages arrived too late for this commit: propose them in the new epoch.
    for (const [id, participant] of this.participants) {
      if (participant.keyPackage && !members.has(id)) out.push(...this.proposeAdd(id, participant.keyPackage));
    }
    return out;
  }

  /** op 23: `userId` is ready for `transitionId`; op 22 goes out once everyone is. */
  transitionReady(userId: string, transitionId: number): DaveOutput {
    const transition = this.transitions.get(transitionId);
    if (!transition) return [];
    transition.waiting.delete(userId);
    return transition.waiting.size === 0 ? this.execute(transitionId) : [];
  }

  /**
   * op 31: `userId` could not process the commit or welcome of `transitionId`. It is proposed
   * for removal and, once it sends a new key package, re-added.
   */
  invalidCommitWelcome(userId: string, transitionId: number): DaveOutput {
    const participant = this.participants.get(userId);
    if (!participant) return [];
    const out: DaveOutput = [];
    const transition = this.transitions.get(transitionId);
    if (transition?.waiting.delete(userId) && transition.waiting.size === 0) out.push(...this.execute(transitionId));
    const add = this.proposals.filter((p) => p.kind === 'add' && p.userId === userId);
    if (add.length > 0) out.push(...this.revoke(add));
    participant.keyPackage = undefined;
    if (this.established && this.leafIndexOf(userId) >= 0 && !this.hasRemoveFor(userId)) {
      out.push(...this.proposeRemove(userId));
    }
    return out;
  }

  /** A user left the call (or its connection dropped for good). */
  memberDisconnected(userId: string): DaveOutput {
    if (!this.participants.delete(userId)) return [];
    const out: DaveOutput = [];
    const add = this.proposals.filter((p) => p.kind === 'add' && p.userId === userId);
    if (add.length > 0) out.push(...this.revoke(add));
    for (const transition of [...this.transitions.values()]) {
      if (transition.waiting.delete(userId) && transition.waiting.size === 0) out.push(...this.execute(transition.id));
    }
    if (!this.established || this.leafIndexOf(userId) < 0) return out;

    const removing = new Set(this.proposals.filter((p) => p.kind === 'remove').map((p) => p.userId));
    const remaining = this.members().filter((id) => id !== userId && !removing.has(id) && this.participants.has(id));
    const joining = this.proposals.some((p) => p.kind === 'add');
    if (remaining.length >= 2 || (remaining.length === 1 && joining)) {
      if (!removing.has(userId)) out.push(...this.proposeRemove(userId));
    } else if (remaining.length === 1) {
      out.push(...this.soleMemberReset(remaining[0]!));
    } else {
      out.push(...this.restartGroupCreation());
    }
    return out;
  }

  /**
   * Executes transitions whose ~2 s wait for op 23 ran out, and re-creates the group when
   * proposals went uncommitted for `stallTimeoutMs`. Call it every few hundred ms.
   */
  tick(nowMs: number): DaveOutput {
    const out: DaveOutput = [];
    for (const transition of [...this.transitions.values()]) {
      if (transition.deadline <= nowMs) out.push(...this.execute(transition.id));
    }
    const waiting = this.proposals.filter((p) => p.sentAt !== undefined).map((p) => p.sentAt!);
    if (waiting.length > 0 && nowMs - Math.min(...waiting) >= this.stallTimeoutMs) out.push(...this.recreateGroup());
    return out;
  }

  // -------------------------------------------------------------------------------------------

  /** Runs one input; a protocol violation becomes `lastError` and no output, never a throw. */
  private guard(run: () => DaveOutput): DaveOutput {
    this.lastError = undefined;
    this.lastRejection = undefined;
    try {
      return run();
    } catch (e) {
      if (!(e instanceof DaveProtocolError)) throw e;
      this.lastError = e;
      return [];
    }
  }

  private reject(reason: CommitRejection): DaveOutput {
    this.lastRejection = reason;
    return [];
  }

  private leafIndexOf(userId: string): number {
    return this.leaves.findIndex((l) => l?.userId === userId);
  }

  private hasRemoveFor(userId: string): boolean {
    return this.proposals.some((p) => p.kind === 'remove' && p.userId === userId);
  }

  private nextTransitionId(): number {
    // u16 on the wire; 0 means "(re)initialization", so it is skipped.
    do {
      this.lastTransitionId = (this.lastTransitionId % 0xffff) + 1;
    } while (this.transitions.has(this.lastTransitionId));
    return this.lastTransitionId;
  }

  private execute(transitionId: number): DaveOutput {
    if (!this.transitions.delete(transitionId)) return [];
    const to = this.members().filter((id) => this.participants.has(id));
    if (to.length === 0) return [];
    return [{ to, op: VoiceOpcode.DaveExecuteTransition, json: { transition_id: transitionId } }];
  }

  /** Who processes proposals now: established members (not being removed), or every pending user with a local group. */
  private proposalAudience(except: string): string[] {
    if (this.established) {
      const removing = new Set(this.proposals.filter((p) => p.kind === 'remove').map((p) => p.userId));
      return this.members().filter((id) => id !== except && !removing.has(id) && this.participants.has(id));
    }
    return [...this.participants].filter(([id, p]) => id !== except && p.keyPackage).map(([id]) => id);
  }

  private record(kind: 'add' | 'remove', userId: string, body: Uint8Array, extra: Partial<InFlightProposal>): InFlightProposal {
    const { message, ref } = buildExternalProposal(this.groupId, this.epochValue, body, this.signer.privateKey);
    const proposal: InFlightProposal = { kind, userId, ref, refHex: toHex(ref), message, recipients: new Set(), ...extra };
    this.proposals.push(proposal);
    return proposal;
  }

  private proposeAdd(userId: string, keyPackage: ValidatedKeyPackage): DaveOutput {
    const proposal = this.record('add', userId, addProposalBody(keyPackage.bytes), { keyPackage });
    const out: DaveOutput = [];
    const to = this.proposalAudience(userId);
    for (const id of to) proposal.recipients.add(id);
    if (to.length > 0) {
      proposal.sentAt ??= this.now();
      out.push({ to, op: VoiceOpcode.DaveMlsProposals, binary: encodeProposalsAppend([proposal.message]) });
    }
    if (!this.established) {
      // Group creation: the newcomer gets the Adds already in flight for the others.
      const others = this.proposals.filter((p) => p !== proposal && p.userId !== userId);
      if (others.length > 0) {
        for (const p of others) {
          p.recipients.add(userId);
          p.sentAt ??= this.now();
        }
        out.push({ to: [userId], op: VoiceOpcode.DaveMlsProposals, binary: encodeProposalsAppend(others.map((p) => p.message)) });
      }
    }
    return out;
  }

  private proposeRemove(userId: string): DaveOutput {
    const leafIndex = this.leafIndexOf(userId);
    const to = this.proposalAudience(userId);
    const proposal = this.record('remove', userId, removeProposalBody(leafIndex), { leafIndex });
    for (const id of to) proposal.recipients.add(id);
    if (to.length > 0) proposal.sentAt = this.now();
    return to.length > 0 ? [{ to, op: VoiceOpcode.DaveMlsProposals, binary: encodeProposalsAppend([proposal.message]) }] : [];
  }

  private revoke(proposals: InFlightProposal[]): DaveOutput {
    const out: DaveOutput = [];
    for (const p of proposals) {
      this.proposals = this.proposals.filter((q) => q !== p);
      const to = [...p.recipients].filter((id) => this.participants.has(id));
      if (to.length > 0) out.push({ to, op: VoiceOpcode.DaveMlsProposals, binary: encodeProposalsRevoke([p.ref]) });
    }
    return out;
  }

  /** DAVE "Sole member reset": the last member starts over with a new local group. */
  private soleMemberReset(userId: string): DaveOutput {
    this.established = false;
    this.epochValue = 0n;
    this.leaves = [];
    this.proposals = [];
    this.transitions.clear();
    const participant = this.participants.get(userId);
    if (participant) participant.keyPackage = undefined;
    return [
      { to: [userId], op: VoiceOpcode.DavePrepareEpoch, json: { protocol_version: DAVE_PROTOCOL_VERSION, epoch: 1 } },
      { to: [userId], op: VoiceOpcode.DavePrepareTransition, json: { protocol_version: DAVE_PROTOCOL_VERSION, transition_id: 0 } },
    ];
  }

  /** The watchdog's way out: everyone starts a new group with a new key package. */
  private recreateGroup(): DaveOutput {
    this.stalls++;
    this.established = false;
    this.epochValue = 0n;
    this.leaves = [];
    this.proposals = [];
    this.transitions.clear();
    for (const participant of this.participants.values()) participant.keyPackage = undefined;
    const to = [...this.participants.keys()];
    return to.length > 0
      ? [{ to, op: VoiceOpcode.DavePrepareEpoch, json: { protocol_version: DAVE_PROTOCOL_VERSION, epoch: 1 } }]
      : [];
  }

  /** Every member left: the users still waiting with key packages create a new group among themselves. */
  private restartGroupCreation(): DaveOutput {
    this.established = false;
    this.epochValue = 0n;
    this.leaves = [];
    this.proposals = [];
    this.transitions.clear();
    const out: DaveOutput = [];
    for (const [id, participant] of this.participants) {
      if (participant.keyPackage) out.push(...this.proposeAdd(id, participant.keyPackage));
    }
    return out;
  }
}

interface ParsedCommitWelcome {
  commit: Uint8Array;
  groupId: Uint8Array;
  epoch: bigint;
  senderLeafIndex: number;
  /** Proposal references in commit order; undefined marks a by-value proposal. */
  refs: (Uint8Array | undefined)[];
  path?: { identity: Uint8Array; signatureKey: Uint8Array };
  welcome?: ParsedWelcome;
}

/** op 28: `MLSMessage commit` (a PublicMessage from a member) optionally followed by a bare Welcome. */
function parseCommitWelcome(body: Uint8Array): ParsedCommitWelcome {
  let decoded: ReturnType<typeof decodeMlsMessage>;
  try {
    decoded = decodeMlsMessage(body, 0);
  } catch {
    decoded = undefined;
  }
  if (!decoded) throw new DaveProtocolError('malformed commit message');
  const [message, length] = decoded;
  if (message.wireformat !== 'mls_public_message') throw new DaveProtocolError('commit must be a PublicMessage');
  const content = message.publicMessage.content;
  if (content.contentType !== 'commit') throw new DaveProtocolError('not a commit');
  if (content.sender.senderType !== 'member') throw new DaveProtocolError('commit must come from a member');
  let welcome: ParsedWelcome | undefined;
  if (length < body.length) {
    try {
      welcome = parseWelcome(body.subarray(length));
    } catch (e) {
      throw new DaveProtocolError(`malformed welcome: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const path = content.commit.path;
  return {
    commit: body.slice(0, length),
    groupId: content.groupId,
    epoch: content.epoch,
    senderLeafIndex: content.sender.leafIndex,
    refs: content.commit.proposals.map((p) => (p.proposalOrRefType === 'reference' ? p.reference : undefined)),
    ...(path && path.leafNode.credential.credentialType === 'basic'
      ? { path: { identity: path.leafNode.credential.identity, signatureKey: path.leafNode.signaturePublicKey } }
      : path
        ? { path: { identity: new Uint8Array(0), signatureKey: path.leafNode.signaturePublicKey } }
        : {}),
    ...(welcome ? { welcome } : {}),
  };
}
