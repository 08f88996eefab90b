/**
 * Joining a group by Welcome, adapted from ts-mls 1.6.4 (`joinGroupWithExtensions` and
 * `validateRatchetTree` in clientState.js; MIT License, Copyright (c) 2025 Luka Jacobowitz) for
 * DAVE's case: the ratchet tree comes in the GroupInfo, no PSKs, no resumption.
 *
 * The one change is the unmerged-leaves rule. RFC 9420 7.9: a leaf in a parent's
 * unmerged_leaves must also be in the unmerged_leaves of every non-blank node between it and
 * that parent. ts-mls demands instead that every non-blank node on the leaf's whole direct path
 * carry an identical list, which rejects valid trees as soon as members added in separate
 * commits without a path sit in different subtrees (ts-mls makes such trees itself, as do
 * OpenMLS and mlspp). Everything else is ts-mls's own code, called through its module exports.
 */
import type { CiphersuiteImpl, ClientConfig, ClientState, GroupContext, KeyPackage, PrivateKeyPackage, RatchetTree, Welcome } from 'ts-mls';
import { validateLeafNodeUpdateOrCommit } from 'ts-mls/clientState.js';
import { extensionsSupportedByCapabilities } from 'ts-mls/extension.js';
import { ratchetTreeFromExtension, verifyGroupInfoConfirmationTag, verifyGroupInfoSignature } from 'ts-mls/groupInfo.js';
import { makeKeyPackageRef } from 'ts-mls/keyPackage.js';
import { deriveKeySchedule } from 'ts-mls/keySchedule.js';
import { verifyLeafNodeSignatureKeyPackage } from 'ts-mls/leafNode.js';
import { verifyParentHashes } from 'ts-mls/parentHash.js';
import { pathToRoot } from 'ts-mls/pathSecrets.js';
import { mergePrivateKeyPaths, toPrivateKeyPath } from 'ts-mls/privateKeyPath.js';
import { findLeafIndex } from 'ts-mls/ratchetTree.js';
import { createSecretTree } from 'ts-mls/secretTree.js';
import { treeHashRoot } from 'ts-mls/treeHash.js';
import { directPath, isLeaf, leafToNodeIndex, leafWidth, nodeToLeafIndex, toLeafIndex, toNodeIndex } from 'ts-mls/treemath.js';
import { firstCommonAncestor } from 'ts-mls/updatePath.js';
import { zeroOutUint8Array } from 'ts-mls/util/byteArray.js';
import { decryptGroupInfo, decryptGroupSecrets } from 'ts-mls/welcome.js';
import { bytesEqual, toHex } from './tls.ts';

export async function joinDaveGroup(
  welcome: Welcome,
  keyPackage: KeyPackage,
  privateKeys: PrivateKeyPackage,
  cs: CiphersuiteImpl,
  clientConfig: ClientConfig,
): Promise<ClientState> {
  const keyPackageRef = await makeKeyPackageRef(keyPackage, cs.hash);
  const initKey = await cs.hpke.importPrivateKey(privateKeys.initPrivateKey);
  const groupSecrets = await decryptGroupSecrets(initKey, keyPackageRef, welcome, cs.hpke);
  if (groupSecrets === undefined) throw new Error('the welcome holds no group secrets for our key package');
  if (groupSecrets.psks.length > 0) throw new Error('DAVE welcomes carry no PSKs');
  const pskSecret = new Uint8Array(cs.kdf.size);
  const gi = await decryptGroupInfo(welcome, groupSecrets.joinerSecret, pskSecret, cs);
  if (gi === undefined) throw new Error('cannot decrypt the group info');
  if (!extensionsSupportedByCapabilities(gi.groupContext.extensions, keyPackage.leafNode.capabilities)) {
    throw new Error('the group uses extensions we do not support');
  }
  const tree = ratchetTreeFromExtension(gi);
  if (tree === undefined) throw new Error('the welcome has no ratchet_tree extension');
  const signer = tree[leafToNodeIndex(toLeafIndex(gi.signer))];
  if (signer?.nodeType !== 'leaf') throw new Error('the group info signer is not a member');
  if (!(await clientConfig.authService.validateCredential(signer.leaf.credential, signer.leaf.signaturePublicKey))) {
    throw new Error('the signer credential is not valid');
  }
  if (!(await verifyGroupInfoSignature(gi, signer.leaf.signaturePublicKey, cs.signature))) {
    throw new Error('the group info signature does not verify');
  }
  if (gi.groupContext.cipherSuite !== keyPackage.cipherSuite) throw new Error('ciphersuite mismatch');
  await validateTree(tree, gi.groupContext, clientConfig, cs);
  const ownLeaf = findLeafIndex(tree, keyPackage.leafNode);
  if (ownLeaf === undefined) throw new Error('our leaf is not in the group');
  const ownPath = { leafIndex: ownLeaf, privateKeys: { [leafToNodeIndex(ownLeaf)]: privateKeys.hpkePrivateKey } };
  const ancestor = firstCommonAncestor(tree, ownLeaf, toLeafIndex(gi.signer));
  const privatePath =
    groupSecrets.pathSecret === undefined
      ? ownPath
      : mergePrivateKeyPaths(await toPrivateKeyPath(await pathToRoot(tree, ancestor, groupSecrets.pathSecret, cs.kdf), ownLeaf, cs), ownPath);
  const [keySchedule, encryptionSecret] = await deriveKeySchedule(groupSecrets.joinerSecret, pskSecret, gi.groupContext, cs.kdf);
  if (!(await verifyGroupInfoConfirmationTag(gi, groupSecrets.joinerSecret, pskSecret, cs))) {
    throw new Error('the confirmation tag does not verify');
  }
  const secretTree = await createSecretTree(leafWidth(tree.length), encryptionSecret, cs.kdf);
  zeroOutUint8Array(encryptionSecret);
  zeroOutUint8Array(groupSecrets.joinerSecret);
  return {
    groupContext: gi.groupContext,
    ratchetTree: tree,
    privatePath,
    signaturePrivateKey: privateKeys.signaturePrivateKey,
    confirmationTag: gi.confirmationTag,
    unappliedProposals: {},
    keySchedule,
    secretTree,
    historicalReceiverData: new Map(),
    groupActiveState: { kind: 'active' },
    clientConfig,
  };
}

/** RFC 9420 12.4.3.1 / 7.9 checks of a received tree (ts-mls's, with the unmerged-leaves rule fixed). */
async function validateTree(tree: RatchetTree, groupContext: GroupContext, config: ClientConfig, cs: CiphersuiteImpl): Promise<void> {
  const hpkeKeys = new Set<string>();
  const signatureKeys = new Set<string>();
  const credentialTypes = new Set<string>();
  const width = leafWidth(tree.length);
  for (const [i, node] of tree.entries()) {
    const index = toNodeIndex(i);
    if (node === undefined) continue;
    if ((node.nodeType === 'leaf') !== isLeaf(index)) throw new Error('the ratchet tree is not structurally sound');
    if (node.nodeType === 'leaf') {
      const leaf = node.leaf;
      if (!unique(hpkeKeys, leaf.hpkePublicKey) || !unique(signatureKeys, leaf.signaturePublicKey)) {
        throw new Error('the ratchet tree repeats a key');
      }
      credentialTypes.add(leaf.credential.credentialType);
      if (leaf.leafNodeSource === 'key_package') {
        if (!(await verifyLeafNodeSignatureKeyPackage(leaf, cs.signature))) throw new Error('a leaf signature does not verify');
        if (!(await config.authService.validateCredential(leaf.credential, leaf.signaturePublicKey))) {
          throw new Error('a leaf credential is not valid');
        }
        if (!extensionsSupportedByCapabilities(leaf.extensions, leaf.capabilities)) throw new Error('a leaf uses unlisted extensions');
      } else {
        const error = await validateLeafNodeUpdateOrCommit(leaf, nodeToLeafIndex(index), groupContext, config.authService, cs.signature);
        if (error !== undefined) throw error;
      }
    } else {
      if (!unique(hpkeKeys, node.parent.hpkePublicKey)) throw new Error('the ratchet tree repeats a key');
      for (const unmerged of node.parent.unmergedLeaves) {
        const leafNode = leafToNodeIndex(toLeafIndex(unmerged));
        const path = directPath(leafNode, width);
        if (tree[leafNode]?.nodeType !== 'leaf' || !path.includes(index)) {
          throw new Error('an unmerged leaf is not a non-blank descendant');
        }
        // Every non-blank node between the leaf and this parent lists it too.
        for (const between of path.slice(0, path.indexOf(index))) {
          const n = tree[between];
          if (n?.nodeType === 'parent' && !n.parent.unmergedLeaves.includes(unmerged)) {
            throw new Error('an intermediate node does not list an unmerged leaf below it');
          }
        }
      }
    }
  }
  for (const node of tree) {
    if (node?.nodeType !== 'leaf') continue;
    for (const type of credentialTypes) {
      if (!node.leaf.capabilities.credentials.includes(type as never)) throw new Error('a member does not support a credential type in use');
    }
  }
  if (!(await verifyParentHashes(tree, cs.hash))) throw new Error('parent hashes do not verify');
  if (!bytesEqual(groupContext.treeHash, await treeHashRoot(tree, cs.hash))) throw new Error('the tree hash does not match');
}

function unique(seen: Set<string>, key: Uint8Array): boolean {
  const hex = toHex(key);
  if (seen.has(hex)) return false;
  seen.add(hex);
  return true;
}
