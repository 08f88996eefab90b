/**
 * The public surface of @social-layer/client: the Client, its handles, its error class, and
 * every type and enum that appears in their signatures (re-exported from the protocol package
 * so a game needs only this import).
 *
 * @module @social-layer/client
 */
export { Client, type TokenExchangeResult } from './Client.ts';
export { ClientResultError, errorTypeToString, type ClientResultInit } from './ClientResultError.ts';
export type { ClientEvents, ClientEventName, Unsubscribe } from './events.ts';
export { LobbyHandle } from './LobbyHandle.ts';
export { LobbyMemberHandle } from './LobbyMemberHandle.ts';
export type { LogCallback } from './Logger.ts';
export { MessageHandle } from './MessageHandle.ts';
export { ChannelHandle } from './ChannelHandle.ts';
export {
  AdditionalContentType,
  DisclosureTypes,
  additionalContentTypeToString,
  type AdditionalContent,
  type GuildChannel,
  type GuildMinimal,
  type LinkedChannel,
  type LinkedLobby,
} from './lobbies/linkedChannelTypes.ts';
export type { ProvisionalUserMergeRequiredCallback } from './lobbies/LinkedChannels.ts';
export { DEFAULT_API_BASE, type ClientOptions } from './options.ts';
export { UserHandle } from './UserHandle.ts';
export { UserApplicationProfileHandle, type UserApplicationProfileWire } from './UserApplicationProfileHandle.ts';
export { ClientCreateOptions } from './ClientCreateOptions.ts';
export { AudioSystem, AvatarType, ClientThread, ExternalIdentityProviderType } from './enums.ts';
export { noDesktopCompanion, type DesktopCompanion } from './desktop/DesktopCompanion.ts';
export { isReleaseBuild } from './Logger.ts';
export { DEFAULT_HTTP_TIMEOUT_MS, type FetchLike } from './HttpApi.ts';
export type { WebSocketConstructor, WebSocketLike } from './webSocket.ts';
export { Activity, ActivityAssets, ActivityButton, ActivityParty, ActivitySecrets, ActivityTimestamps } from './Activity.ts';
export { ActivityInvite } from './ActivityInvite.ts';
export { RelationshipHandle } from './RelationshipHandle.ts';
export { UserMessageSummary } from './UserMessageSummary.ts';
export {
  ActivityActionTypes,
  ActivityGamePlatforms,
  ActivityPartyPrivacy,
  ActivityTypes,
  RelationshipGroupType,
  RelationshipType,
  StatusDisplayTypes,
  StatusType,
} from '@social-layer/protocol';
export {
  AuthenticationExternalAuthType,
  AuthorizationTokenType,
  ChannelType,
  ClientError,
  ClientStatus,
  ErrorType,
  LoggingSeverity,
  type Metadata,
} from '@social-layer/protocol';
// Voice (issue 4): calls, their handles and enums, the audio callback types.
export { AudioModeType, CallError, CallStatus, callErrorToString, callStatusToString } from './voice/enums.ts';
export type { VADThresholdSettings } from './voice/CaptureGate.ts';
export type { UserAudioCapturedCallback, UserAudioReceivedCallback } from './voice/MediaPipeline.ts';
export { Call, type CallEvents } from './voice/Call.ts';
export { CallInfoHandle } from './voice/CallInfoHandle.ts';
export { VoiceStateHandle } from './voice/VoiceStateHandle.ts';
export type { AudioDevice, AudioProcessingSettings } from './voice/audio/AudioEngine.ts';
export type { VoiceOptions } from './voice/VoiceManager.ts';
export type { OpusCodecFactory, OpusDecoder, OpusEncoder } from './voice/codec/OpusCodec.ts';
// Account linking (OAuth2): value classes, the authorize opener type and token results.
export { AuthorizationArgs, AuthorizationCodeChallenge, AuthorizationCodeVerifier, DeviceAuthorizationArgs } from './auth/AuthorizationArgs.ts';
export { popupOpener, popupPageOpener, type AuthorizationResult, type AuthorizeOpener, type PageOpener } from './auth/authorizeFlow.ts';
export type { ChildTokenResult, CurrentUserResult, DeviceScreen } from './auth/ClientAuth.ts';
export { DEFAULT_TOKEN_EXPIRY_THRESHOLD_MS, type TokenExpirationCallback } from './auth/TokenExpiry.ts';
export { AuthenticationCodeChallengeMethod, IntegrationType } from '@social-layer/protocol';
