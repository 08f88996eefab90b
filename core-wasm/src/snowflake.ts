/** Snowflake IDs cross the WASM boundary as u64; on the JS side they stay decimal strings. */

const U64_LIMIT = 1n << 64n;
const DECIMAL = /^[0-9]{1,20}$/;

/** Parses a decimal snowflake into a u64 BigInt; undefined when it is not one. */
export function parseU64(id: string): bigint | undefined {
  if (typeof id !== 'string' || !DECIMAL.test(id)) return undefined;
  const value = BigInt(id);
  return value < U64_LIMIT ? value : undefined;
}

/** Parses a decimal snowflake into a u64 BigInt or throws a TypeError. */
export function toU64(id: string): bigint {
  const value = parseU64(id);
  if (value === undefined) throw new TypeError(`not a snowflake ID: ${JSON.stringify(id)}`);
  return value;
}

/** Formats a u64 that WebAssembly returned (signed i64 BigInt) as a decimal string. */
export function fromU64(value: bigint): string {
  return BigInt.asUintN(64, value).toString();
}
