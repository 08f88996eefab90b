/**
 * `BENCH_PROFILE=DIR`: a CPU profile of only the measured phase of a benchmark (setup, sign-ins
 * and warm-up left out), written as DIR/<name>.cpuprofile for Chrome DevTools or `summarize`.
 * In-process through node:inspector, because `node --cpu-prof` profiles the whole run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const stop = await startProfile(name);
  try {
    return await fn();
  } finally {
    await stop();
  }
}

/** Starts profiling this process when BENCH_PROFILE is set; the returned function writes the profile (a no-op otherwise). */
export async function startProfile(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return async () => {};
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
