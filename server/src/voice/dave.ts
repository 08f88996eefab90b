/**
 * The voice gateway's view of the DAVE delivery service (contracts-voice.md 3): the MLS external
 * sender and delivery service of one call. The gateway only moves bytes and follows the plain
 * instructions (`DaveOutput`) it returns; it never holds a media key.
 */
export interface DaveOutputMessage {
  to: string[] | 'all';
  op: number;
  json?: unknown;
  binary?: Uint8Array;
}
export type DaveOutput = DaveOutputMessage[];

export interface DaveDelivery {
  externalSenderPayload(): Uint8Array;
  memberConnected(userId: string): DaveOutput | void;
  keyPackage(userId: string, body: Uint8Array): DaveOutput;
  commitWelcome(userId: string, body: Uint8Array): DaveOutput;
  transitionReady(userId: string, transitionId: number): DaveOutput;
  invalidCommitWelcome(userId: string, transitionId: number): DaveOutput;
  memberDisconnected(userId: string): DaveOutput;
  tick(nowMs: number): DaveOutput;
}

export type DaveDeliveryFactory = (callId: string) => Promise<DaveDelivery>;
