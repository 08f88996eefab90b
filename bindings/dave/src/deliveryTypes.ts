import type { ValidatedKeyPackage } from './mls.ts';

// What the delivery service (DaveDeliveryService.ts) takes and answers, and the records it keeps
// per member, proposal and transition: apart from the service so that the service file holds
// only the protocol's steps.

/** One message for the voice gateway to send: JSON ops carry `json`, binary ops `binary` (the payload after the op byte). */
export interface DaveOutputMessage {
  /** Who gets it: these users' connections, or `'all'` of the call's. */
  to: string[] | 'all';
  /** The voice gateway opcode (21-31, the DAVE ones). */
  op: number;
  /** The `d` of a JSON op. */
  json?: unknown;
  /** The payload of a binary op, after the opcode byte. */
  binary?: Uint8Array;
}
/** What the delivery service asks the voice gateway to send, in order. */
export type DaveOutput = DaveOutputMessage[];

/** Options of `DaveDeliveryService`: its timeouts and clock. */
export interface DaveDeliveryServiceOptions {
  /** How long a transition waits for op 23 from everyone before op 22 goes out anyway (default 2000 ms). */
  transitionTimeoutMs?: number;
  /**
   * Watchdog: when proposals wait this long (default 10 s) without a valid commit, the group is
   * re-created (op 24 epoch 1 to everyone) instead of stalling.
   */
  stallTimeoutMs?: number;
  /** Clock for transition deadlines (default Date.now); `tick(nowMs)` compares against it. */
  now?: () => number;
}

/** DaveDeliveryService.inspect() */
export interface DaveGroupView {
  /** Whether the group exists (the first commit was accepted). */
  established: boolean;
  /** The current MLS epoch. */
  epoch: number;
  /** User id per leaf index, null for blank leaves. */
  leaves: (string | null)[];
  /** Unrevoked proposals of the epoch, in order. */
  proposals: {
    /** Whether it adds or removes a member. */
    kind: 'add' | 'remove';
    /** The member it adds or removes. */
    userId: string;
    /** Its proposal reference (hex). */
    ref: string;
    /** Who was sent it. */
    recipients: string[];
  }[];
  /** Users whose validated key package waits to be committed. */
  keyPackages: string[];
  /** The users connected to the call. */
  connected: string[];
  /** Transitions waiting for op 23 (ready) from these users, until the deadline. */
  transitions: {
    /** The transition ID of ops 21-24. */
    id: number;
    /** Who has not sent op 23 yet. */
    waiting: string[];
    /** When op 22 goes out anyway (the service's clock, ms). */
    deadline: number;
  }[];
}

/** Why a commit was not broadcast (the voice gateway may log it; the sender is not at fault for races). */
export type CommitRejection =
  | 'wrong-epoch'
  | 'not-a-member'
  | 'nothing-to-commit'
  | 'proposals-mismatch'
  | 'leaf-changed'
  | 'welcome-missing'
  | 'path-missing';

export interface Participant {
  keyPackage?: ValidatedKeyPackage;
}

export interface Leaf {
  userId: string;
  signatureKey: Uint8Array;
}

export interface InFlightProposal {
  kind: 'add' | 'remove';
  userId: string;
  ref: Uint8Array;
  refHex: string;
  message: Uint8Array;
  /** add: the key package it adds. */
  keyPackage?: ValidatedKeyPackage;
  /** remove: the leaf it removes. */
  leafIndex?: number;
  /** Who was sent the proposal (so a revoke reaches the same people). */
  recipients: Set<string>;
  /** When it was first sent to anyone (the watchdog's clock). */
  sentAt?: number;
}

export interface Transition {
  id: number;
  waiting: Set<string>;
  deadline: number;
}
