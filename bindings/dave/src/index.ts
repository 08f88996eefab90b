/**
 * @social-layer/dave: DAVE end-to-end encryption (protocols.md 4) for the voice gateway and clients.
 *
 * @module @social-layer/dave
 */
export {
  DaveDeliveryService,
  type DaveDeliveryServiceOptions,
  type DaveOutput,
  type DaveOutputMessage,
  type CommitRejection,
  type DaveGroupView,
} from './DaveDeliveryService.ts';
export { DaveSession, type DaveSessionOptions, type DaveSessionResult, type DaveSend } from './DaveSession.ts';
export {
  DaveProtocolError,
  DAVE_MLS_CIPHERSUITE,
  DAVE_MLS_CIPHERSUITE_ID,
  DAVE_MEDIA_KEY_LABEL,
  displayableCode,
  snowflakeBytes,
  validateKeyPackage,
  parseExternalSender,
  type ValidatedKeyPackage,
  type ExternalSenderInfo,
} from './mls.ts';
