/** `Call::Status` (social-sdk-api.md 7.2); a Call is usable for audio once Connected. */
export const CallStatus = {
  /** Not in the call. */
  Disconnected: 0,
  /** Asking the Gateway to join. */
  Joining: 1,
  /** Connecting to the voice gateway. */
  Connecting: 2,
  /** The voice gateway answered; the media transport is opening. */
  SignalingConnected: 3,
  /** In the call: audio flows. */
  Connected: 4,
  /** Lost the connection; resuming. */
  Reconnecting: 5,
  /** Leaving. */
  Disconnecting: 6,
} as const;
export type CallStatus = (typeof CallStatus)[keyof typeof CallStatus];

/** `Call::Error`. */
export const CallError = {
  /** No error. */
  None: 0,
  /** The voice gateway could not be reached. */
  SignalingConnectionFailed: 1,
  /** The voice gateway closed the connection and it could not be resumed. */
  SignalingUnexpectedClose: 2,
  /** The media transport could not be opened. */
  VoiceConnectionFailed: 3,
  /** The join got no answer in time. */
  JoinTimeout: 4,
  /** The user may not join this call. */
  Forbidden: 5,
} as const;
export type CallError = (typeof CallError)[keyof typeof CallError];

/** `AudioModeType`: voice activity or push-to-talk. */
export const AudioModeType = {
  /** Not set yet. */
  MODE_UNINIT: 0,
  /** Voice activity: the microphone opens when the player speaks. */
  MODE_VAD: 1,
  /** Push-to-talk: the microphone opens while the key is held. */
  MODE_PTT: 2,
} as const;
export type AudioModeType = (typeof AudioModeType)[keyof typeof AudioModeType];

const STATUS_NAMES: Record<CallStatus, string> = {
  0: 'Disconnected',
  1: 'Joining',
  2: 'Connecting',
  3: 'SignalingConnected',
  4: 'Connected',
  5: 'Reconnecting',
  6: 'Disconnecting',
};

const ERROR_NAMES: Record<CallError, string> = {
  0: 'None',
  1: 'SignalingConnectionFailed',
  2: 'SignalingUnexpectedClose',
  3: 'VoiceConnectionFailed',
  4: 'JoinTimeout',
  5: 'Forbidden',
};

/** The name of a `Call.Status` value, as the spec's `Call::StatusToString`. */
export function callStatusToString(status: CallStatus): string {
  return STATUS_NAMES[status] ?? 'Unknown';
}

/** The name of a `Call.Error` value, as the spec's `Call::ErrorToString`. */
export function callErrorToString(error: CallError): string {
  return ERROR_NAMES[error] ?? 'Unknown';
}
