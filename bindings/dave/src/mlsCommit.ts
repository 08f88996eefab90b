/**
 * Creating and processing MLS commits, adapted from ts-mls 1.6.4 (`createCommit` in
 * createCommit.js, `processCommit` in processMessages.js; MIT License, Copyright (c) 2025
 * Luka Jacobowitz) for DAVE's case only: PublicMessage commits by members over Add/Remove
 * proposals held by reference, with the ratchet tree in the welcome.
 *
 * The one change is the commit secret. RFC 9420 7.4: commit_secret = DeriveSecret(last path
 * secret, "path"). ts-mls always derives a secret for the root and then the commit secret from
 * it, which is one derivation too many whenever the root is not on the committer's filtered
 * direct path (the other half of the tree is all blank, e.g. members 0 and 1 left a group of
 * four). OpenMLS and mlspp follow the RFC, so every such commit failed between ts-mls and a
 * davey/libdave member with a confirmation-tag mismatch. `commitSecretAfter` does it right on
 * both sides. Everything else is ts-mls's own code, called through its module exports.
 */
import type { CiphersuiteImpl, ClientState, GroupInfo, KeyPackage, MLSMessage, PublicMessage, RatchetTree, Welcome } from 'ts-mls';
import {
  addHistoricalReceiverData,
  applyProposals,
  checkCanSendHandshakeMessages,
  makePskIndex,
  nextEpochContext,
  throwIfDefined,
  validateLeafNodeCredentialAndKeyUniqueness,
  validateLeafNodeUpdateOrCommit,
  type ApplyProposalsResult,
} from 'ts-mls/clientState.js';
import { applyUpdatePathSecret, createGroupInfoWithRatchetTree } from 'ts-mls/createCommit.js';
import { deriveSecret, type Kdf } from 'ts-mls/crypto/kdf.js';
import { createConfirmationTag, createContentCommitSignature, verifyConfirmationTag } from 'ts-mls/framedContent.js';
import { makeKeyPackageRef } from 'ts-mls/keyPackage.js';
import { initializeEpoch, type EpochSecrets } from 'ts-mls/keySchedule.js';
import { protectPublicMessage, unprotectPublicMessage } from 'ts-mls/messageProtectionPublic.js';
import { pathToPathSecrets, pathToRoot, type PathSecrets } from 'ts-mls/pathSecrets.js';
import { mergePrivateKeyPaths, toPrivateKeyPath, updateLeafKey } from 'ts-mls/privateKeyPath.js';
import { createSecretTree } from 'ts-mls/secretTree.js';
import { treeHashRoot } from 'ts-mls/treeHash.js';
import { leafToNodeIndex, leafWidth, root, toLeafIndex, toNodeIndex, type LeafIndex, type NodeIndex } from 'ts-mls/treemath.js';
import { applyUpdatePath, createUpdatePath, firstCommonAncestor, type PathSecret } from 'ts-mls/updatePath.js';
import { zeroOutUint8Array } from 'ts-mls/util/byteArray.js';
import { encryptGroupInfo, encryptGroupSecrets } from 'ts-mls/welcome.js';

/**
 * RFC 9420 7.4 commit secret: one DeriveSecret(·, "path") past the last path secret. `secrets`
 * holds the path secrets from a node of the filtered direct path up to the root as ts-mls's
 * pathToRoot derives them (it also makes one for a blank root, which is then the commit secret).
 */
async function commitSecretAfter(tree: RatchetTree, secrets: PathSecrets, kdf: Kdf): Promise<Uint8Array> {
  const rootIndex = root(leafWidth(tree.length));
  const rootSecret = secrets[rootIndex];
  if (rootSecret === undefined) throw new Error('no path secret for the root');
  if (tree[rootIndex] === undefined) return rootSecret.slice();
  return deriveSecret(rootSecret, 'path', kdf);
}

export interface CommitResult {
  commit: MLSMessage;
  welcome: Welcome | undefined;
  newState: ClientState;
}

/** A PublicMessage commit of every proposal in `state.unappliedProposals`, by reference. */
export async function createDaveCommit(state: ClientState, cs: CiphersuiteImpl): Promise<CommitResult> {
  checkCanSendHandshakeMessages(state);
  const pskIndex = makePskIndex(state, {});
  const proposals = Object.keys(state.unappliedProposals).map((ref) => ({
    proposalOrRefType: 'reference' as const,
    reference: base64ToBytes(ref),
  }));
  const ownLeaf = toLeafIndex(state.privatePath.leafIndex);
  const res = await applyProposals(state, proposals, ownLeaf, pskIndex, true, cs);
  if (res.additionalResult.kind !== 'memberCommit') throw new Error('DAVE commits only add and remove members');
  const addedLeafNodes = res.additionalResult.addedLeafNodes;
  // New members get their path secret in the Welcome, not through the UpdatePath.
  const excludeNodes = addedLeafNodes.map(([leafIndex]) => leafToNodeIndex(leafIndex));
  const [tree, updatePath, pathSecrets, newPrivateKey] = res.needsUpdatePath
    ? await createUpdatePath(res.tree, ownLeaf, state.groupContext, state.signaturePrivateKey, cs, excludeNodes)
    : [res.tree, undefined, [] as PathSecret[], undefined];
  const privateKeys = mergePrivateKeyPaths(
    newPrivateKey !== undefined ? updateLeafKey(state.privatePath, await cs.hpke.exportPrivateKey(newPrivateKey)) : state.privatePath,
    await toPrivateKeyPath(pathToPathSecrets(pathSecrets), state.privatePath.leafIndex, cs),
  );
  const lastPathSecret = pathSecrets.at(-1);
  const commitSecret =
    lastPathSecret === undefined
      ? new Uint8Array(cs.kdf.size)
      : await commitSecretAfter(tree, await pathToRoot(tree, toNodeIndex(lastPathSecret.nodeIndex), lastPathSecret.secret, cs.kdf), cs.kdf);
  const wireformat = 'mls_public_message' as const;
  const { signature, framedContent } = await createContentCommitSignature(
    state.groupContext,
    wireformat,
    { proposals, path: updatePath },
    { senderType: 'member', leafIndex: state.privatePath.leafIndex },
    new Uint8Array(),
    state.signaturePrivateKey,
    cs.signature,
  );
  const treeHash = await treeHashRoot(tree, cs.hash);
  const groupContext = await nextEpochContext(state.groupContext, wireformat, framedContent, signature, treeHash, state.confirmationTag, cs.hash);
  const epochSecrets = await initializeEpoch(state.keySchedule.initSecret, commitSecret, groupContext, res.pskSecret, cs.kdf);
  const confirmationTag = await createConfirmationTag(epochSecrets.keySchedule.confirmationKey, groupContext.confirmedTranscriptHash, cs.hash);
  const publicMessage = await protectPublicMessage(
    state.keySchedule.membershipKey,
    state.groupContext,
    { wireformat, content: framedContent, auth: { contentType: 'commit', signature, confirmationTag } },
    cs,
  );
  const welcome = await createWelcome(groupContext, confirmationTag, state, tree, cs, epochSecrets, res, pathSecrets, addedLeafNodes);
  const [historicalReceiverData] = addHistoricalReceiverData(state);
  const newState: ClientState = {
    groupContext,
    ratchetTree: tree,
    secretTree: await createSecretTree(leafWidth(tree.length), epochSecrets.encryptionSecret, cs.kdf),
    keySchedule: epochSecrets.keySchedule,
    privatePath: privateKeys,
    unappliedProposals: {},
    historicalReceiverData,
    confirmationTag,
    signaturePrivateKey: state.signaturePrivateKey,
    groupActiveState: res.selfRemoved ? { kind: 'removedFromGroup' } : { kind: 'active' },
    clientConfig: state.clientConfig,
  };
  zeroOutUint8Array(commitSecret);
  zeroOutUint8Array(epochSecrets.encryptionSecret);
  zeroOutUint8Array(epochSecrets.joinerSecret);
  return { commit: { version: 'mls10', wireformat: 'mls_public_message', publicMessage }, welcome, newState };
}

async function createWelcome(
  groupContext: ClientState['groupContext'],
  confirmationTag: Uint8Array,
  state: ClientState,
  tree: RatchetTree,
  cs: CiphersuiteImpl,
  epochSecrets: EpochSecrets,
  res: ApplyProposalsResult,
  pathSecrets: PathSecret[],
  added: [LeafIndex, KeyPackage][],
): Promise<Welcome | undefined> {
  if (added.length === 0) return undefined;
  const groupInfo: GroupInfo = await createGroupInfoWithRatchetTree(groupContext, confirmationTag, state, tree, [], cs);
  const encryptedGroupInfo = await encryptGroupInfo(groupInfo, epochSecrets.welcomeSecret, cs);
  const secrets = await Promise.all(
    added.map(async ([leafIndex, keyPackage]) => {
      const nodeIndex: NodeIndex = firstCommonAncestor(tree, leafIndex, toLeafIndex(state.privatePath.leafIndex));
      const pathSecret = pathSecrets.find((ps) => ps.nodeIndex === nodeIndex);
      const pk = await cs.hpke.importPublicKey(keyPackage.initKey);
      const egs = await encryptGroupSecrets(
        pk,
        encryptedGroupInfo,
        { joinerSecret: epochSecrets.joinerSecret, pathSecret: pathSecret?.secret, psks: res.pskIds },
        cs.hpke,
      );
      return {
        newMember: await makeKeyPackageRef(keyPackage, cs.hash),
        encryptedGroupSecrets: { kemOutput: egs.enc, ciphertext: egs.ct },
      };
    }),
  );
  return { cipherSuite: groupContext.cipherSuite, secrets, encryptedGroupInfo };
}

/** Processes another member's PublicMessage commit; returns the next epoch's state. */
export async function processDaveCommit(state: ClientState, message: PublicMessage, cs: CiphersuiteImpl): Promise<ClientState> {
  if (message.content.epoch !== state.groupContext.epoch) throw new Error('commit is for another epoch');
  const content = await unprotectPublicMessage(state.keySchedule.membershipKey, state.groupContext, state.ratchetTree, message, cs);
  if (content.content.contentType !== 'commit' || content.auth.contentType !== 'commit') throw new Error('not a commit');
  if (content.content.sender.senderType !== 'member') throw new Error('commit must come from a member');
  const commit = content.content.commit;
  const senderLeafIndex = toLeafIndex(content.content.sender.leafIndex);
  const pskIndex = makePskIndex(state, {});
  const result = await applyProposals(state, commit.proposals, senderLeafIndex, pskIndex, false, cs);
  if (result.additionalResult.kind !== 'memberCommit') throw new Error('DAVE commits only add and remove members');
  if (commit.path !== undefined) {
    throwIfDefined(
      await validateLeafNodeUpdateOrCommit(commit.path.leafNode, senderLeafIndex, state.groupContext, state.clientConfig.authService, cs.signature),
    );
    throwIfDefined(await validateLeafNodeCredentialAndKeyUniqueness(result.tree, commit.path.leafNode, senderLeafIndex));
  }
  if (result.needsUpdatePath && commit.path === undefined) throw new Error('update path is required');
  if (result.selfRemoved) {
    return { ...state, ratchetTree: result.tree, unappliedProposals: {}, groupActiveState: { kind: 'removedFromGroup' } };
  }
  const excludeNodes = result.additionalResult.addedLeafNodes.map(([l]) => leafToNodeIndex(toLeafIndex(l)));
  let tree = result.tree;
  let privatePath = state.privatePath;
  let commitSecret: Uint8Array = new Uint8Array(cs.kdf.size);
  if (commit.path !== undefined) {
    tree = await applyUpdatePath(tree, senderLeafIndex, commit.path, cs.hash);
    const nextContext = { ...state.groupContext, treeHash: await treeHashRoot(tree, cs.hash), epoch: state.groupContext.epoch + 1n };
    const secret = await applyUpdatePathSecret(tree, state.privatePath, senderLeafIndex, nextContext, commit.path, excludeNodes, cs);
    const secrets = await pathToRoot(tree, toNodeIndex(secret.nodeIndex), secret.pathSecret, cs.kdf);
    commitSecret = await commitSecretAfter(tree, secrets, cs.kdf);
    // A blank root keeps no key: drop the secret pathToRoot made up for it.
    const rootIndex = root(leafWidth(tree.length));
    if (tree[rootIndex] === undefined) delete secrets[rootIndex];
    privatePath = mergePrivateKeyPaths(state.privatePath, await toPrivateKeyPath(secrets, state.privatePath.leafIndex, cs));
  }
  const treeHash = await treeHashRoot(tree, cs.hash);
  const groupContext = await nextEpochContext(
    state.groupContext,
    'mls_public_message',
    content.content,
    content.auth.signature,
    treeHash,
    state.confirmationTag,
    cs.hash,
  );
  const epochSecrets = await initializeEpoch(state.keySchedule.initSecret, commitSecret, groupContext, result.pskSecret, cs.kdf);
  if (!(await verifyConfirmationTag(epochSecrets.keySchedule.confirmationKey, content.auth.confirmationTag, groupContext.confirmedTranscriptHash, cs.hash))) {
    throw new Error('confirmation tag does not verify');
  }
  const secretTree = await createSecretTree(leafWidth(tree.length), epochSecrets.encryptionSecret, cs.kdf);
  const [historicalReceiverData] = addHistoricalReceiverData(state);
  zeroOutUint8Array(commitSecret);
  zeroOutUint8Array(epochSecrets.joinerSecret);
  zeroOutUint8Array(epochSecrets.encryptionSecret);
  return {
    ...state,
    secretTree,
    ratchetTree: tree,
    privatePath,
    groupContext,
    keySchedule: epochSecrets.keySchedule,
    confirmationTag: content.auth.confirmationTag,
    historicalReceiverData,
    unappliedProposals: {},
    groupActiveState: { kind: 'active' },
  };
}

function base64ToBytes(s: string): Uint8Array {
  const binary = atob(s);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
