/** Snowflake helpers (protocols.md 2.4): bits 63-22 are milliseconds since the epoch below. */
export const SNOWFLAKE_EPOCH_MS = 1420070400000;

export function snowflakeTimestamp(id: string): number {
  return Number(BigInt(id) >> 22n) + SNOWFLAKE_EPOCH_MS;
}

export function isSnowflake(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9]{1,20}$/.test(value) && BigInt(value) < 1n << 64n;
}
