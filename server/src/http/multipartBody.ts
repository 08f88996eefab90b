import { finished } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { MAX_ATTACHMENT_BYTES } from '../messages/attachments.ts';
import { ApiError } from './ApiError.ts';
import { holdUploadBytes } from './uploadBudget.ts';

/** One file of a multipart request (`files[n]`, or `file` as files[0]). */
export interface MultipartFile { index: number; filename: string; contentType: string; data: Buffer }

/**
 * A body as JSON, or the public multipart form: `payload_json` (the JSON body) and `files[n]`
 * (`content` as a plain field too where `contentField` is set, as Create Message takes it).
 * A file over the limit (10 MiB, or `maxFileBytes`) is drained unkept and answered 413 / 40005. The one multipart reader of
 * the message-carrying routes; call it only after the caller is authenticated, since it buffers
 * up to the caller's limit per file, under the process's upload budget.
 */
export async function readMultipartBody(req: FastifyRequest, opts: { contentField?: boolean; maxFileBytes?: number } = {}): Promise<{ body: unknown; files: MultipartFile[] }> {
  const maxFileBytes = opts.maxFileBytes ?? MAX_ATTACHMENT_BYTES;
  if (!req.isMultipart()) return { body: req.body, files: [] };
  let body: unknown = {};
  const files: MultipartFile[] = [];
  let tooLarge = false;
  let busy = false;
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
    // Read chunk by chunk against the process's upload budget, so many uploads at once cannot
    // hold more memory than it allows (the bytes are given back when the answer is sent). Past
    // the budget the rest is read and dropped, so the client gets its 503 instead of a reset.
    const chunks: Buffer[] = [];
    let size = 0;
    // A file past the caller's limit (the scope's ceiling is the largest any caller has) is
    // drained the same way, and answered 413.
    let over = false;
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      if (busy || over) continue;
      if (size + chunk.length > maxFileBytes) {
        over = true;
        continue;
      }
      if (!holdUploadBytes(req, chunk.length)) {
        busy = true;
        continue;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    if (busy) continue;
    if (over) {
      tooLarge = true;
      continue;
    }
    const data = Buffer.concat(chunks, size);
    if (part.file.truncated || data.length > maxFileBytes) {
      tooLarge = true;
      continue;
    }
    const n = /^files\[(\d{1,2})\]$/.exec(part.fieldname)?.[1] ?? (part.fieldname === 'file' ? '0' : undefined);
    if (n !== undefined) files.push({ index: Number(n), filename: part.filename, contentType: part.mimetype || 'application/octet-stream', data });
  }
  if (busy || tooLarge) {
    // The refusal ends the connection (as servers commonly do on a 413): kept alive, the client's
    // next request on it was now and then reset under load. The body is read to its end first,
    // so the client gets this answer rather than a reset while it still sends.
    if (!req.raw.complete) await finished(req.raw, { writable: false }).catch(() => {});
    if (busy) throw new ApiError(503, 0, 'Too many uploads in progress: retry in a moment', undefined, { 'retry-after': '1', connection: 'close' });
    throw new ApiError(413, 40005, 'Request entity too large', undefined, { connection: 'close' });
  }
  return { body, files };
}
