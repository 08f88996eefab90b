/** Percentile of an unsorted sample (nearest-rank), in the sample's unit. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/**
 * Milliseconds on the system's monotonic clock (CLOCK_MONOTONIC, the same in every process on
 * the machine, unlike performance.now()'s per-process origin), so a time taken in a benchmark's
 * child process can be subtracted from one taken in the parent.
 */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
