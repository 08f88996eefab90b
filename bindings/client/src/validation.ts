import {
  AuthenticationExternalAuthType,
  EXTERNAL_AUTH_TYPE_WIRE,
  isSnowflake,
  Limits,
  type Metadata,
} from '@social-layer/protocol';
import { ClientResultError } from './ClientResultError.ts';
import { metadataChars } from './metadata.ts';

// Local checks run before any request so that bad input fails fast with ValidationError and
// never costs a round trip or a rate-limit slot. The limits are the server's (bindings/protocol).

export function checkSnowflake(value: unknown, what: string): string {
  if (!isSnowflake(value)) throw ClientResultError.validation(`${what} must be a snowflake ID string`);
  return value;
}

export function checkLobbySecret(secret: unknown): string {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw ClientResultError.validation('lobby secret must be a non-empty string');
  }
  if (secret.length > Limits.lobbySecretMaxLength) {
    throw ClientResultError.validation(`lobby secret is longer than ${Limits.lobbySecretMaxLength} characters`);
  }
  return secret;
}

export function checkMetadata(metadata: unknown, what: string): Metadata {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw ClientResultError.validation(`${what} must be an object of strings`);
  }
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== 'string') throw ClientResultError.validation(`${what}.${key} must be a string`);
  }
  const map = metadata as Metadata;
  if (metadataChars(map) > Limits.metadataMaxChars) {
    throw ClientResultError.validation(`${what} is longer than ${Limits.metadataMaxChars} characters in all`);
  }
  return map;
}

export function checkMessageContent(content: unknown): string {
  if (typeof content !== 'string' || content.length === 0) {
    throw ClientResultError.validation('message content must be a non-empty string');
  }
  if (content.length > Limits.messageContentMaxLength) {
    throw ClientResultError.validation(`message content is longer than ${Limits.messageContentMaxLength} characters`);
  }
  return content;
}

export function checkDisplayName(name: unknown): string {
  if (typeof name !== 'string') throw ClientResultError.validation('display name must be a string');
  const trimmed = name.trim();
  if (trimmed.length < Limits.displayNameMinLength || trimmed.length > Limits.displayNameMaxLength) {
    throw ClientResultError.validation(
      `display name must be ${Limits.displayNameMinLength}-${Limits.displayNameMaxLength} characters`,
    );
  }
  return name;
}

/** Returns the wire name of the auth type after checking the token's shape where we know it. */
export function checkExternalAuth(type: unknown, token: unknown): string {
  const wire = EXTERNAL_AUTH_TYPE_WIRE[type as AuthenticationExternalAuthType];
  if (wire === undefined) throw ClientResultError.validation(`unknown external auth type ${String(type)}`);
  if (typeof token !== 'string' || token.length === 0) {
    throw ClientResultError.validation('external auth token must be a non-empty string');
  }
  if (type === AuthenticationExternalAuthType.DeviceId) {
    const { deviceIdMinLength: min, deviceIdMaxLength: max } = Limits;
    if (token.length < min || token.length > max || !/^[A-Za-z0-9_-]+$/.test(token)) {
      throw ClientResultError.validation(`a device ID must be ${min}-${max} characters of [A-Za-z0-9_-]`);
    }
  }
  return wire;
}
