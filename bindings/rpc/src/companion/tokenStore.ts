import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** One signed-in application: the player's token for it. */
export interface StoredToken {
  access_token: string;
  refresh_token?: string;
  /** Milliseconds since the epoch. */
  expires_at?: number;
  /** Filled in after the token is checked; informational in the file. */
  application_id?: string;
}

/** The OS user's config directory: %APPDATA% on Windows, ~/Library/Application Support on macOS, else $XDG_CONFIG_HOME or ~/.config. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return env.APPDATA || join(homedir(), 'AppData', 'Roaming');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || join(homedir(), '.config');
}

export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return join(userConfigDir(env, platform), 'social-layer', 'companion-tokens.json');
}

/** Refusing a token file: the message names the file, never its content. */
export class TokenFileError extends Error {}

/**
 * Reads a token file: a JSON object `{"tokens": [StoredToken, ...]}`, one StoredToken object,
 * or a bare access token on one line. On Unix the file must not be readable or writable by
 * group or others (mode 0600 or stricter); a wider one is refused before it is read.
 */
export function readTokenFile(path: string, platform: NodeJS.Platform = process.platform): StoredToken[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new TokenFileError(`Token file ${path} does not exist`);
  }
  if (!st.isFile()) throw new TokenFileError(`Token file ${path} is not a regular file`);
  if (platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new TokenFileError(`Token file ${path} is readable by other users (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 on it`);
  }
  if (platform !== 'win32' && typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new TokenFileError(`Token file ${path} belongs to another user`);
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!text) throw new TokenFileError(`Token file ${path} is empty`);
  if (!text.startsWith('{')) {
    if (/\s/.test(text)) throw new TokenFileError(`Token file ${path} is neither JSON nor a single token`);
    return [{ access_token: text }];
  }
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TokenFileError(`Token file ${path} is not valid JSON`);
  }
  const list: unknown[] = Array.isArray(parsed?.tokens) ? parsed.tokens : [parsed];
  const out: StoredToken[] = [];
  for (const t of list) {
    const o = t as Partial<StoredToken>;
    if (!o || typeof o.access_token !== 'string' || o.access_token.length === 0 || o.access_token.length > 512) {
      throw new TokenFileError(`Token file ${path} has an entry without a valid access_token`);
    }
    out.push({
      access_token: o.access_token,
      ...(typeof o.refresh_token === 'string' ? { refresh_token: o.refresh_token } : {}),
      ...(typeof o.expires_at === 'number' ? { expires_at: o.expires_at } : {}),
      ...(typeof o.application_id === 'string' ? { application_id: o.application_id } : {}),
    });
  }
  return out;
}

/** Writes the token file with mode 0600 (its folder 0700) from its first byte, replacing it atomically. */
export function writeTokenFile(path: string, tokens: StoredToken[]): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // The folder may predate us with a wider mode: only its owner needs to list it.
  if (process.platform !== 'win32' && statSync(dirname(path)).uid === process.getuid?.()) chmodSync(dirname(path), statSync(dirname(path)).mode & 0o700);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify({ tokens }, null, 2) + '\n');
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
