/** Where commerce reads the time: injected so tests can move through billing periods. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
