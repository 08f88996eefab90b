import type { ParseArgsConfig } from 'node:util';

/**
 * One admin CLI command (`social-layer <words...> --options`). Each lives in its own module and
 * is listed once in commands.ts; a later slice adds its commands (`guilds create`,
 * `apps install`, `skus create`, ...) the same way.
 */
export interface CliCommand {
  /** The words that name it, e.g. ['apps', 'approve']. */
  words: string[];
  /** Usage lines shown by `social-layer --help`. */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Returns the exit code; -1 keeps the process running (the server). */
  run(values: Record<string, string | boolean | (string | boolean)[] | undefined>, io: CliIo): Promise<number>;
}

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** A usage or input error: exit code 2 with the message on stderr. */
export class CliUsageError extends Error {}

/** Prints an object as the command's result: JSON in its public shape, one document. */
export function printJson(io: CliIo, value: unknown): void {
  io.out(JSON.stringify(value, null, 2) + '\n');
}

export function requireString(values: Record<string, unknown>, name: string, what: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new CliUsageError(`--${name} ${what} is required`);
  return v.trim();
}

export function snowflakeOption(values: Record<string, unknown>, name: string): string {
  const v = requireString(values, name, 'ID');
  if (!/^\d{1,20}$/.test(v)) throw new CliUsageError(`--${name} must be a numeric ID, not ${JSON.stringify(v)}`);
  return v;
}
