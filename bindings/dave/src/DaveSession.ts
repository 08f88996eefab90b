import { DAVE_PROTOCOL_VERSION, VoiceOpcode } from '@social-layer/protocol';
import { HashRatchet, VoiceCore, type KeyRatchet } from '@social-layer/core-wasm';
import {
  bytesToBase64,
  createGroup,
  encodeMlsMessage,
  generateKeyPackageWithKey,
  mlsExporter,
  type CiphersuiteImpl,
  type ClientConfig,
  type ClientState,
  type KeyPackage,
  type PrivateKeyPackage,
} from 'ts-mls';
import { defaultClientConfig } from 'ts-mls/clientConfig.js';
import { decodeMlsMessage } from 'ts-mls/message.js';
import { decodeWelcome, encodeWelcome } from 'ts-mls/welcome.js';
import { encodeKeyPackage } from 'ts-mls/keyPackage.js';
import { addUnappliedProposal } from 'ts-mls/unappliedProposals.js';
import { generateSignatureKeyPair } from './crypto.ts';
import { createDaveCommit, processDaveCommit, type CommitResult } from './mlsCommit.ts';
import { joinDaveGroup } from './mlsJoin.ts';
import {
  DAVE_CAPABILITIES,
  DAVE_LIFETIME,
  DAVE_MEDIA_KEY_BYTES,
  DAVE_MEDIA_KEY_LABEL,
  DaveProtocolError,
  daveCiphersuite,
  displayableCode,
  externalSendersExtension,
  identityToUserId,
  parseExternalSender,
  parseExternalSenders,
  parseProposals,
  snowflakeBytes,
  verifyExternalProposal,
  type ExternalSenderInfo,
} from './mls.ts';
import { bytesEqual, concat } from './tls.ts';

/** A message for the client to send on the voice gateway. */
export interface DaveSend {
  /** The voice gateway opcode. */
  op: number;
  /** The `d` of a JSON op. */
  json?: unknown;
  /** The payload of a binary op, after the opcode byte. */
  binary?: Uint8Array;
}

/** What handling one voice gateway message produced. */
export interface DaveSessionResult {
  /** Messages to send back (op 23, 26, 28, 31), in order. */
  send: DaveSend[];
  /**
   * The group moved to a new epoch (commit or welcome processed): give every remote sender's
   * DaveFrameDecryptor `senderKeyRatchet(id)` (setRatchet keeps the old keys for 10 s).
   */
  keysChanged: boolean;
  /** A transition was executed (op 22, or id 0 at once): switch the encryptor to `senderKeyRatchet(self)`. */
  executedTransition?: number;
  /** Why the input was ignored or rejected (nothing changed then, unless `send` holds a recovery). */
  error?: string;
}

/** Options of `DaveSession.create`. */
export interface DaveSessionOptions {
  /** This user's ID (the MLS credential's identity). */
  userId: string;
  /** The call's id (a snowflake; the MLS group id). */
  callId: string;
  /** The version from op 4 (default and only supported: 1). */
  protocolVersion?: number;
  /** The core.wasm instance for the hash ratchets (default: a small one of its own). */
  core?: VoiceCore;
}

interface OwnKeyPackage {
  publicPackage: KeyPackage;
  privatePackage: PrivateKeyPackage;
  bytes: Uint8Array;
}

interface PendingCommit {
  bytes: Uint8Array;
  state: ClientState;
}

/**
 * The client side of DAVE (protocols.md 4.2, as discord.js's DAVESession over libdave/davey):
 * key packages, a local pending group, external proposals -> commit, commits and welcomes,
 * transitions, and per-sender media key ratchets from the MLS exporter for core-wasm's
 * DaveFrameEncryptor/DaveFrameDecryptor.
 *
 * Handlers run one at a time in call order (each waits for the previous one), so the voice
 * gateway client may call them straight from its message handler.
 */
export class DaveSession {
  /** This user's ID. */
  readonly userId: string;
  /** The call's ID (the MLS group ID). */
  readonly callId: string;
  private readonly groupId: Uint8Array;
  private protocolVersionValue: number;
  private ownKeyPackage: OwnKeyPackage | undefined;
  private externalSender: ExternalSenderInfo | undefined;
  /** Our local group at epoch 0, before any group is established. */
  private pendingGroup: ClientState | undefined;
  /** The established group (epoch >= 1). */
  private group: ClientState | undefined;
  /** The base state plus the proposals received this epoch. */
  private proposalState: ClientState | undefined;
  private pendingCommit: PendingCommit | undefined;
  private readonly recognized = new Set<string>();
  private readonly pendingTransitions = new Map<number, number>();
  private baseSecrets = new Map<string, Uint8Array>();
  private ratchets = new Map<string, KeyRatchet>();
  private lastTransitionIdValue: number | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    options: DaveSessionOptions,
    private readonly cs: CiphersuiteImpl,
    private readonly core: VoiceCore,
    private readonly clientConfig: ClientConfig,
  ) {
    this.userId = options.userId;
    this.callId = options.callId;
    this.groupId = snowflakeBytes(options.callId);
    snowflakeBytes(options.userId);
    this.protocolVersionValue = options.protocolVersion ?? DAVE_PROTOCOL_VERSION;
  }

  /** A session with its first key package ready (`keyPackage()`, the op 26 body to send after op 4). */
  static async create(options: DaveSessionOptions): Promise<DaveSession> {
    if ((options.protocolVersion ?? DAVE_PROTOCOL_VERSION) !== DAVE_PROTOCOL_VERSION) {
      throw new RangeError(`unsupported DAVE protocol version ${options.protocolVersion}`);
    }
    if (!globalThis.crypto?.subtle) {
      throw new Error('DAVE needs WebCrypto (crypto.subtle): in browsers, a secure context (https or localhost)');
    }
    const cs = await daveCiphersuite();
    const core = options.core ?? (await VoiceCore.create({ poolBytes: 256 << 10 }));
    const clientConfig: ClientConfig = {
      ...defaultClientConfig,
      authService: {
        // DAVE credentials are basic, naming a user id as 8 bytes.
        async validateCredential(credential) {
          return credential.credentialType === 'basic' && credential.identity.length === 8;
        },
      },
    };
    const session = new DaveSession(options, cs, core, clientConfig);
    await session.newKeyPackage();
    return session;
  }

  /** The DAVE protocol version of the session (1). */
  get protocolVersion(): number {
    return this.protocolVersionValue;
  }

  /** The established group's epoch; 0 while there is none. */
  get epoch(): number {
    return this.group ? Number(this.group.groupContext.epoch) : 0;
  }

  /** True when this session holds an established group, so media keys exist for the current epoch. */
  get ready(): boolean {
    return this.group !== undefined;
  }

  /** The transition last executed (op 22 or an id-0 (re)initialization). */
  get lastTransitionId(): number | undefined {
    return this.lastTransitionIdValue;
  }

  /** The op 26 body: our current key package (a bare KeyPackage, as libdave and davey send). */
  keyPackage(): Uint8Array {
    if (!this.ownKeyPackage) throw new Error('no key package: the session is a member of the group');
    return this.ownKeyPackage.bytes.slice();
  }

  /** User ids in the established group, by leaf index. */
  members(): string[] {
    if (!this.group) return [];
    const out: string[] = [];
    for (const node of this.group.ratchetTree) {
      if (node?.nodeType !== 'leaf' || node.leaf.credential.credentialType !== 'basic') continue;
      const id = identityToUserId(node.leaf.credential.identity);
      if (id) out.push(id);
    }
    return out;
  }

  /** The 30-digit voice privacy code of the current epoch (DAVE "Displayable Codes"), or undefined. */
  get voicePrivacyCode(): string | undefined {
    return this.group ? displayableCode(this.group.keySchedule.epochAuthenticator, 30, 5) : undefined;
  }

  /** op 11: users the gateway announced; Add proposals for anyone else are refused. */
  onClientsConnect(userIds: readonly string[]): void {
    for (const id of userIds) this.recognized.add(id);
  }

  /** op 13 */
  onClientDisconnect(userId: string): void {
    this.recognized.delete(userId);
  }

  /** The base secret of `userId`'s media keys in the current epoch: MLS-Exporter("Discord Secure Frames v0", id LE, 16). */
  senderBaseSecret(userId: string): Uint8Array | undefined {
    return this.baseSecrets.get(userId)?.slice();
  }

  /**
   * The hash ratchet over `userId`'s base secret of the current epoch, for a DaveFrameDecryptor
   * (remote senders) or the DaveFrameEncryptor (ourselves); undefined when there is no group or
   * the user is not in it. The same object for the whole epoch, so a caller can tell a new
   * epoch by identity (and never restart an encryptor's nonces under the same key).
   */
  senderKeyRatchet(userId: string): KeyRatchet | undefined {
    let ratchet = this.ratchets.get(userId);
    if (!ratchet) {
      const base = this.baseSecrets.get(userId);
      if (!base) return undefined;
      ratchet = new HashRatchet(this.core, base);
      this.ratchets.set(userId, ratchet);
    }
    return ratchet;
  }

  /** op 25 */
  onExternalSender(body: Uint8Array): Promise<DaveSessionResult> {
    return this.serialize(async () => {
      if (this.group) return result({ error: 'external sender ignored: already in a group' });
      let sender: ExternalSenderInfo;
      try {
        sender = parseExternalSender(body);
      } catch (e) {
        return result({ error: message(e) });
      }
      this.externalSender = sender;
      this.proposalState = undefined;
      this.pendingCommit = undefined;
      await this.createPendingGroup();
      return result();
    });
  }

  /** op 27: appends or revokes proposals; returns op 28 (commit and welcome) when any remain. */
  onProposals(body: Uint8Array): Promise<DaveSessionResult> {
    return this.serialize(async () => {
      const base = this.group ?? this.pendingGroup;
      if (!base || !this.externalSender) return result({ error: 'proposals ignored: no local group' });
      let state = this.proposalState ?? base;
      try {
        const parsed = parseProposals(body);
        if (parsed.revoke) {
          const unapplied = { ...state.unappliedProposals };
          for (const ref of parsed.refs) {
            const key = bytesToBase64(ref);
            if (!(key in unapplied)) throw new DaveProtocolError('revoke of an unknown proposal');
            delete unapplied[key];
          }
          state = { ...state, unappliedProposals: unapplied };
        } else {
          for (const m of parsed.messages) state = this.appendProposal(state, m);
        }
      } catch (e) {
        return result({ error: message(e) });
      }
      if (Object.keys(state.unappliedProposals).length === 0) {
        this.proposalState = state;
        this.pendingCommit = undefined;
        return result();
      }
      let commit: CommitResult;
      try {
        commit = await createDaveCommit(state, this.cs);
      } catch (e) {
        return result({ error: `cannot commit: ${message(e)}` });
      }
      this.proposalState = state;
      const bytes = encodeMlsMessage(commit.commit);
      this.pendingCommit = { bytes, state: commit.newState };
      const welcome = commit.welcome ? encodeWelcome(commit.welcome) : new Uint8Array(0);
      return result({ send: [{ op: VoiceOpcode.DaveMlsCommitWelcome, binary: concat(bytes, welcome) }] });
    });
  }

  /** op 29: the winning commit of the epoch (ours or another member's). */
  onCommit(body: Uint8Array): Promise<DaveSessionResult> {
    return this.serialize(async () => {
      if (body.length < 2) return result({ error: 'commit too short' });
      const transitionId = (body[0]! << 8) | body[1]!;
      const commit = body.subarray(2);
      let state: ClientState;
      try {
        state = await this.stateAfterCommit(commit);
      } catch (e) {
        return this.recover(transitionId, `invalid commit: ${message(e)}`);
      }
      if (state.groupActiveState.kind === 'removedFromGroup') {
        // We were removed; wait (in a fresh local group) to be welcomed again.
        this.group = undefined;
        this.baseSecrets = new Map();
        this.ratchets = new Map();
        this.proposalState = undefined;
        this.pendingCommit = undefined;
        await this.newKeyPackage();
        await this.createPendingGroup();
        return result({ keysChanged: true, send: [{ op: VoiceOpcode.DaveMlsKeyPackage, binary: this.keyPackage() }] });
      }
      return this.enterEpoch(state, transitionId);
    });
  }

  /** op 30: the welcome that makes us a member. */
  onWelcome(body: Uint8Array): Promise<DaveSessionResult> {
    return this.serialize(async () => {
      if (body.length < 2) return result({ error: 'welcome too short' });
      const transitionId = (body[0]! << 8) | body[1]!;
      let state: ClientState;
      try {
        state = await this.join(body.subarray(2));
      } catch (e) {
        return this.recover(transitionId, `invalid welcome: ${message(e)}`);
      }
      return this.enterEpoch(state, transitionId);
    });
  }

  /** op 21 */
  onPrepareTransition(data: { protocol_version: number; transition_id: number }): Promise<DaveSessionResult> {
    return this.serialize(async () => {
      this.pendingTransitions.set(data.transition_id, data.protocol_version);
      if (data.transition_id === 0) return result({ ...this.execute(0) });
      return result({ send: [{ op: VoiceOpcode.DaveTransitionReady, json: { transition_id: data.transition_id } }] });
    });
  }

  /** op 22 */
  onExecuteTransition(data: { transition_id: number }): Promise<DaveSessionResult> {
    return this.serialize(async () => {
      if (!this.pendingTransitions.has(data.transition_id)) {
        return result({ error: `no pending transition ${data.transition_id}` });
      }
      return result({ ...this.execute(data.transition_id) });
    });
  }

  /** op 24: epoch 1 means a new group: reset, new key package (returned as op 26). */
  onPrepareEpoch(data: { protocol_version: number; epoch: number }): Promise<DaveSessionResult> {
    return this.serialize(async () => {
      if (data.epoch !== 1) return result();
      if (data.protocol_version !== DAVE_PROTOCOL_VERSION) {
        return result({ error: `unsupported DAVE protocol version ${data.protocol_version}` });
      }
      this.protocolVersionValue = data.protocol_version;
      await this.reinit();
      return result({ keysChanged: true, send: [{ op: VoiceOpcode.DaveMlsKeyPackage, binary: this.keyPackage() }] });
    });
  }

  /** Drops all MLS state and starts over with a new key package (what op 31 recovery does). */
  reset(): Promise<DaveSessionResult> {
    return this.serialize(async () => {
      await this.reinit();
      return result({ keysChanged: true, send: [{ op: VoiceOpcode.DaveMlsKeyPackage, binary: this.keyPackage() }] });
    });
  }

  // -------------------------------------------------------------------------------------------

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async newKeyPackage(): Promise<void> {
    const credential = { credentialType: 'basic' as const, identity: snowflakeBytes(this.userId) };
    const keys = generateSignatureKeyPair();
    const generated = await generateKeyPackageWithKey(
      credential,
      DAVE_CAPABILITIES,
      DAVE_LIFETIME,
      [],
      { signKey: keys.privateKey, publicKey: keys.publicKey },
      this.cs,
    );
    this.ownKeyPackage = { ...generated, bytes: encodeKeyPackage(generated.publicPackage) };
  }

  /**
   * Our one-member group at epoch 0 (DAVE "Initial Group Creation"), with the gateway as its
   * one external sender. ts-mls would reject the RFC form of external_senders at creation (it
   * reads the extension as one ExternalSender), so the group is created without it and the
   * extension is set on the epoch-0 context before anything is derived from that context.
   */
  private async createPendingGroup(): Promise<void> {
    this.pendingGroup = undefined;
    if (!this.externalSender || !this.ownKeyPackage || this.group) return;
    const state = await createGroup(
      this.groupId,
      this.ownKeyPackage.publicPackage,
      this.ownKeyPackage.privatePackage,
      [],
      this.cs,
      this.clientConfig,
    );
    this.pendingGroup = {
      ...state,
      groupContext: { ...state.groupContext, extensions: [externalSendersExtension(this.externalSender.bytes)] },
    };
  }

  private async reinit(): Promise<void> {
    this.group = undefined;
    this.pendingGroup = undefined;
    this.proposalState = undefined;
    this.pendingCommit = undefined;
    this.baseSecrets = new Map();
    this.ratchets = new Map();
    this.pendingTransitions.clear();
    await this.newKeyPackage();
    await this.createPendingGroup();
  }

  private appendProposal(state: ClientState, messageBytes: Uint8Array): ClientState {
    const verified = verifyExternalProposal(messageBytes, this.externalSender!.signatureKey);
    if (!bytesEqual(verified.groupId, this.groupId)) throw new DaveProtocolError('proposal for another group');
    if (verified.epoch !== state.groupContext.epoch) {
      throw new DaveProtocolError(`proposal for epoch ${verified.epoch}, group is at ${state.groupContext.epoch}`);
    }
    const proposal = verified.proposal;
    if (proposal.proposalType === 'add') {
      const credential = proposal.add.keyPackage.leafNode.credential;
      const userId = credential.credentialType === 'basic' ? identityToUserId(credential.identity) : undefined;
      if (userId === undefined) throw new DaveProtocolError('add proposal without a DAVE credential');
      if (userId === this.userId) throw new DaveProtocolError('add proposal for ourselves');
      if (!this.recognized.has(userId)) throw new DaveProtocolError(`add proposal for unannounced user ${userId}`);
    } else if (proposal.proposalType === 'remove') {
      const node = state.ratchetTree[proposal.remove.removed * 2];
      if (node?.nodeType !== 'leaf') throw new DaveProtocolError('remove proposal for an empty leaf');
    } else {
      throw new DaveProtocolError(`proposal type ${String(proposal.proposalType)} is not allowed`);
    }
    return { ...state, unappliedProposals: addUnappliedProposal(verified.ref, state.unappliedProposals, proposal, undefined) };
  }

  private async stateAfterCommit(commit: Uint8Array): Promise<ClientState> {
    if (this.pendingCommit && bytesEqual(commit, this.pendingCommit.bytes)) return this.pendingCommit.state;
    // Without an established group, only our own commit can be processed (DAVE "Client Commit Validity").
    if (!this.group) throw new DaveProtocolError('no established group');
    const decoded = decodeMlsMessage(commit, 0);
    if (!decoded || decoded[1] !== commit.length) throw new DaveProtocolError('malformed commit');
    const [mls] = decoded;
    if (mls.wireformat !== 'mls_public_message') throw new DaveProtocolError('commit must be a PublicMessage');
    const content = mls.publicMessage.content;
    if (content.contentType !== 'commit') throw new DaveProtocolError('not a commit');
    if (!bytesEqual(content.groupId, this.groupId)) throw new DaveProtocolError('commit for another group');
    if (content.commit.proposals.some((p) => p.proposalOrRefType !== 'reference')) {
      throw new DaveProtocolError('commit carries a proposal by value');
    }
    return processDaveCommit(this.proposalState ?? this.group, mls.publicMessage, this.cs);
  }

  private async join(welcomeBytes: Uint8Array): Promise<ClientState> {
    if (this.group) throw new DaveProtocolError('already in a group');
    if (!this.externalSender) throw new DaveProtocolError('no external sender');
    if (!this.ownKeyPackage) throw new DaveProtocolError('no key package');
    const decoded = decodeWelcome(welcomeBytes, 0);
    if (!decoded || decoded[1] !== welcomeBytes.length) throw new DaveProtocolError('malformed welcome');
    const state = await joinDaveGroup(decoded[0], this.ownKeyPackage.publicPackage, this.ownKeyPackage.privatePackage, this.cs, this.clientConfig);
    if (!bytesEqual(state.groupContext.groupId, this.groupId)) throw new DaveProtocolError('welcome to another group');
    const senders = state.groupContext.extensions.filter((e) => e.extensionType === 'external_senders' || e.extensionType === 5);
    if (senders.length !== 1) throw new DaveProtocolError('group must have one external_senders extension');
    const list = parseExternalSenders(senders[0]!.extensionData);
    if (list.length !== 1 || !bytesEqual(list[0]!, this.externalSender.bytes)) {
      throw new DaveProtocolError('group external sender is not the voice gateway');
    }
    return state;
  }

  private async enterEpoch(state: ClientState, transitionId: number): Promise<DaveSessionResult> {
    const ids = new Set<string>();
    for (const node of state.ratchetTree) {
      if (node?.nodeType !== 'leaf') continue;
      const id = node.leaf.credential.credentialType === 'basic' ? identityToUserId(node.leaf.credential.identity) : undefined;
      if (id === undefined || ids.has(id)) return this.recover(transitionId, 'group has a duplicate or invalid member identity');
      ids.add(id);
    }
    if (!ids.has(this.userId)) return this.recover(transitionId, 'we are not in the group');
    const secrets = new Map<string, Uint8Array>();
    for (const id of ids) {
      secrets.set(
        id,
        await mlsExporter(state.keySchedule.exporterSecret, DAVE_MEDIA_KEY_LABEL, snowflakeBytes(id, true), DAVE_MEDIA_KEY_BYTES, this.cs),
      );
    }
    this.group = state;
    this.pendingGroup = undefined;
    this.proposalState = undefined;
    this.pendingCommit = undefined;
    // Our key package is spent (it became our leaf, or it was welcomed).
    this.ownKeyPackage = undefined;
    this.baseSecrets = secrets;
    this.ratchets = new Map();
    if (transitionId === 0) {
      this.pendingTransitions.set(0, this.protocolVersionValue);
      return result({ keysChanged: true, ...this.execute(0) });
    }
    this.pendingTransitions.set(transitionId, this.protocolVersionValue);
    return result({ keysChanged: true, send: [{ op: VoiceOpcode.DaveTransitionReady, json: { transition_id: transitionId } }] });
  }

  private execute(transitionId: number): Partial<DaveSessionResult> {
    const version = this.pendingTransitions.get(transitionId);
    this.pendingTransitions.delete(transitionId);
    if (version !== undefined) this.protocolVersionValue = version;
    this.lastTransitionIdValue = transitionId;
    return { executedTransition: transitionId };
  }

  /** An unprocessable commit or welcome: tell the gateway (op 31), start over, send a new key package. */
  private async recover(transitionId: number, error: string): Promise<DaveSessionResult> {
    await this.reinit();
    return result({
      error,
      keysChanged: true,
      send: [
        { op: VoiceOpcode.DaveMlsInvalidCommitWelcome, json: { transition_id: transitionId } },
        { op: VoiceOpcode.DaveMlsKeyPackage, binary: this.keyPackage() },
      ],
    });
  }
}

function result(partial: Partial<DaveSessionResult> = {}): DaveSessionResult {
  return { send: [], keysChanged: false, ...partial };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

