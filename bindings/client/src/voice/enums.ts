/** `Call::Status` (social-sdk-api.md 7.2); a Call is usable for audio once Connected. */
export const CallStatus = {
  Disconnected: 0,
  Joining: 1,
  Connecting: 2,
  SignalingConnected: 3,
  Connected: 4,
  Reconnecting: 5,
  Disconnecting: 6,
} as const;
export type CallStatus = (typeof CallStatus)[keyof typeof CallStatus];

/** `Call::Error`. */
export const CallError = {
  None: 0,
  SignalingConnectionFailed: 1,
  SignalingUnexpectedClose: 2,
  VoiceConnectionFailed: 3,
  JoinTimeout: 4,
  Forbidden: 5,
} as const;
export type CallError = (typeof CallError)[keyof typeof CallError];

/** `AudioModeType`: voice activity or push-to-talk. */
export const AudioModeType = {
  MODE_UNINIT: 0,
  MODE_VAD: 1,
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

export function callStatusToString(status: CallStatus): string {
  return STATUS_NAMES[status] ?? 'Unknown';
}

export function callErrorToString(error: CallError): string {
  return ERROR_NAMES[error] ?? 'Unknown';
}
