import { ClientError, ClientStatus } from '@social-layer/protocol';

// Names derived from the `as const` tables so they cannot drift from the enum values.
const STATUS_NAMES = invert(ClientStatus);
const ERROR_NAMES = invert(ClientError);

function invert<T extends Record<string, number>>(table: T): Map<number, string> {
  return new Map(Object.entries(table).map(([name, value]) => [value, name]));
}

/** Client::StatusToString. */
export function statusToString(status: ClientStatus): string {
  return STATUS_NAMES.get(status) ?? `Unknown(${status})`;
}

/** Client::ErrorToString. */
export function errorToString(error: ClientError): string {
  return ERROR_NAMES.get(error) ?? `Unknown(${error})`;
}
