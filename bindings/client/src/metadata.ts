import type { Metadata } from '@social-layer/protocol';

/** Canonical metadata JSON (core-wasm) -> a map; always a fresh object the caller may keep or change. */
export function parseMetadataJson(json: string | undefined): Metadata {
  if (!json || json === 'null') return {};
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' ? { ...(value as Metadata) } : {};
  } catch {
    return {};
  }
}

/** Characters counted against the 1000-character metadata limit: every key and every value. */
export function metadataChars(metadata: Metadata): number {
  let total = 0;
  for (const [key, value] of Object.entries(metadata)) total += key.length + value.length;
  return total;
}
