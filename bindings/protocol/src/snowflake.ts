/** Snowflake helpers (protocols.md 2.4): bits 63-22 are milliseconds since the epoch below. */
export const SNOWFLAKE_EPOCH_MS = 1420070400000;

/** When the snowflake `id` was made, in milliseconds since the Unix epoch. */
export function snowflakeTimestamp(id: string): number {
  return Number(BigInt(id) >> 22n) + SNOWFLAKE_EPOCH_MS;
}

/** Whether `value` is a snowflake ID: a decimal string of at most 20 digits below 2^64. */
export function isSnowflake(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9]{1,20}$/.test(value) && BigInt(value) < 1n << 64n;
}
