import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { MAX_ATTACHMENT_BYTES } from '../messages/attachments.ts';
import { ApiError } from './ApiError.ts';
import { holdUploadBytes } from './uploadBudget.ts';
import { requestTempDir, uploadTempRoot } from './uploadTempFiles.ts';

/**
 * One file of a multipart request (`files[n]`, or `file` as files[0]): its bytes are in a temporary
 * file (`path`, in the request's own folder) until an attachment store takes it (`putFile`); the
 * folder is removed when the request is answered.
 */
export interface MultipartFile { index: number; filename: string; contentType: string; size: number; path: string }

/** Resolves when the stream takes writes again, or is closed (after an error, which its own listener keeps). */
function drained(out: WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/**
 * A body as JSON, or the public multipart form: `payload_json` (the JSON body) and `files[n]`
 * (`content` as a plain field too where `contentField` is set, as Create Message takes it).
 * Each file is written to a temporary file as it arrives (under `tempDir`, the server's data
 * folder, else the system's temporary folder), so a request's files never sit in memory. A file
 * over the limit (10 MiB, or `maxFileBytes`) is drained unkept and answered 413 / 40005. The one
 * multipart reader of the message-carrying routes; call it only after the caller is authorized,
 * since it writes up to the caller's limit per file, under the process's upload budget.
 */
export async function readMultipartBody(req: FastifyRequest, opts: { contentField?: boolean; maxFileBytes?: number; tempDir?: string } = {}): Promise<{ body: unknown; files: MultipartFile[] }> {
  const maxFileBytes = opts.maxFileBytes ?? MAX_ATTACHMENT_BYTES;
  if (!req.isMultipart()) return { body: req.body, files: [] };
  let body: unknown = {};
  const files: MultipartFile[] = [];
  let tooLarge = false;
  let busy = false;
  let failed: unknown;
  let written = 0;
  for await (const part of req.parts()) {
    if (part.type === 'field') {
      if (part.fieldname === 'payload_json' && typeof part.value === 'string') {
        try {
          body = JSON.parse(part.value);
        } catch {
          throw new ApiError(400, 50035, 'Invalid Form Body', { payload_json: { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'payload_json is not JSON' }] } } as never);
        }
      } else if (opts.contentField && part.fieldname === 'content' && typeof part.value === 'string') {
        body = { ...(body as object), content: part.value };
      }
      continue;
    }
    const n = /^files\[(\d{1,2})\]$/.exec(part.fieldname)?.[1] ?? (part.fieldname === 'file' ? '0' : undefined);
    // Chunk by chunk against the process's upload budget (given back when the answer is sent) and
    // the caller's limit (the scope's ceiling is the largest any caller has). Past either, or after
    // a failed write, nothing more is written and the rest is read and dropped, so the client gets
    // its 503 or 413 instead of a reset.
    let out: WriteStream | undefined;
    let path = '';
    if (n !== undefined && !busy && !tooLarge && failed === undefined) {
      try {
        path = join(await requestTempDir(req, uploadTempRoot(opts.tempDir)), `file-${written++}`);
        out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
        out.on('error', (err) => (failed ??= err));
      } catch (err) {
        failed ??= err;
      }
    }
    let size = 0;
    let over = false;
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      if (busy || over || failed !== undefined) continue;
      if (size + chunk.length > maxFileBytes) {
        over = true;
        continue;
      }
      // A file under no `files[n]` name is only measured against the limit, never kept.
      if (out && !holdUploadBytes(req, chunk.length)) {
        busy = true;
        continue;
      }
      size += chunk.length;
      // Wait for the disk when it is slower than the client, so chunks do not pile up in memory.
      if (out && !out.write(chunk)) await drained(out);
    }
    if (out) {
      out.end();
      await finished(out).catch((err: unknown) => (failed ??= err));
    }
    if (over || part.file.truncated) tooLarge = true;
    if (!out || busy || tooLarge || failed !== undefined) continue;
    files.push({ index: Number(n), filename: part.filename, contentType: part.mimetype || 'application/octet-stream', size, path });
  }
  if (busy || tooLarge || failed !== undefined) {
    // The refusal ends the connection (as servers commonly do on a 413): kept alive, the client's
    // next request on it was now and then reset under load. The body is read to its end first,
    // so the client gets this answer rather than a reset while it still sends. What was written
    // goes with the request's temporary folder when the answer is sent.
    if (!req.raw.complete) await finished(req.raw, { writable: false }).catch(() => {});
    if (busy) throw new ApiError(503, 0, 'Too many uploads in progress: retry in a moment', undefined, { 'retry-after': '1', connection: 'close' });
    if (tooLarge) throw new ApiError(413, 40005, 'Request entity too large', undefined, { connection: 'close' });
    throw failed;
  }
  return { body, files };
}
