/** Reconnect delays: exponential growth, capped, with "equal jitter" so many clients dropped by
 * one server restart do not all come back in the same millisecond, yet none waits near zero
 * over and over. */
export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
