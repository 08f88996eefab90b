import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** 10 MiB per attachment by default (issue 11), checked per file. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_ATTACHMENTS = 10;
/** Attachment flag IS_SPOILER (public value). */
export const ATTACHMENT_IS_SPOILER = 1 << 3;
/** Signed CDN URLs stay valid this long (the public `ex` parameter). */
export const ATTACHMENT_URL_TTL_S = 24 * 3600;

/** An attachment as stored in the message row (the URLs are signed when the message is read). */
export interface StoredAttachment {
  id: string;
  filename: string;
  description?: string;
  content_type?: string;
  size: number;
  flags?: number;
}

/** Where attachment bytes live: the data folder by default, or an S3-compatible bucket (s3AttachmentStore.ts). */
export interface AttachmentStore {
  put(key: string, data: Buffer): Promise<void>;
  /** Stores the file at `path` (an upload's temporary file) under `key` and removes it from `path`: its bytes are never read into memory whole. */
  putFile(key: string, path: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  delete(key: string): Promise<void>;
}

export class FsAttachmentStore implements AttachmentStore {
  constructor(private readonly root: string) {}

  private path(key: string): string {
    // Keys are built from snowflakes only (channel/attachment), never from a filename.
    if (!/^\d{1,20}\/\d{1,20}$/.test(key)) throw new Error('bad attachment key');
    return join(this.root, key);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, data, { mode: 0o600 });
  }

  async putFile(key: string, path: string): Promise<void> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    try {
      await rename(path, p);
    } catch (err) {
      // The temporary folder is on another filesystem: copy, then remove the original.
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await copyFile(path, p);
      await chmod(p, 0o600);
      await rm(path, { force: true });
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    return readFile(this.path(key)).catch(() => undefined);
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

/**
 * Signs CDN paths the public way: `ex` (expiry, hex Unix seconds), `is` (issued, hex) and `hm`
 * (HMAC-SHA256 of path, ex and is). The key is kept in the data folder (mode 0600), made on
 * first use; nodes that share attachments must share the data folder (or, later, the bucket).
 */
export class UrlSigner {
  private readonly key: Buffer;

  constructor(dataDir: string) {
    const file = join(dataDir, 'attachment-url.key');
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true });
      try {
        writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
      } catch {
        // Another node or process wrote it first: use theirs.
      }
    }
    this.key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  }

  private mac(path: string, ex: string, is: string): string {
    return createHmac('sha256', this.key).update(`${path}\n${ex}\n${is}`).digest('hex');
  }

  sign(path: string, now = Date.now()): string {
    const is = Math.floor(now / 1000).toString(16);
    const ex = (Math.floor(now / 1000) + ATTACHMENT_URL_TTL_S).toString(16);
    return `${path}?ex=${ex}&is=${is}&hm=${this.mac(path, ex, is)}`;
  }

  verify(path: string, q: { ex?: string; is?: string; hm?: string }, now = Date.now()): boolean {
    if (!q.ex || !q.is || !q.hm || !/^[0-9a-f]{1,12}$/.test(q.ex) || !/^[0-9a-f]{1,12}$/.test(q.is) || !/^[0-9a-f]{64}$/.test(q.hm)) return false;
    if (parseInt(q.ex, 16) * 1000 < now) return false;
    const want = Buffer.from(this.mac(path, q.ex, q.is), 'hex');
    return timingSafeEqual(want, Buffer.from(q.hm, 'hex'));
  }
}

/** The CDN path of one attachment (the filename is cosmetic; the key is channel and ID). */
export function attachmentPath(channelId: string, a: StoredAttachment): string {
  return `/attachments/${channelId}/${a.id}/${encodeURIComponent(a.filename)}`;
}

/** Filenames as publicly normalised: no path, no control characters, at most 1024 characters. */
export function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 1024);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'unknown' : cleaned;
}
