import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';

/**
 * Where a request's uploaded files wait while the request is handled: one folder per request
 * (mode 0700, files 0600), made when its first file arrives and removed when its answer is sent or
 * its client goes away (installUploadBudget), so a refused or failed upload leaves nothing behind.
 * Under the data folder when the server has one: the attachment store's folder is then on the same
 * filesystem and a stored file is renamed, not copied.
 */
export function uploadTempRoot(dataDir?: string): string {
  return dataDir ? join(dataDir, 'upload-temp') : join(tmpdir(), 'social-layer-upload-temp');
}

const DIR = Symbol('uploadTempDir');
type WithDir = FastifyRequest & { [DIR]?: Promise<string> };

/** This request's temporary folder under `root`, made on first use. */
export function requestTempDir(req: FastifyRequest, root: string): Promise<string> {
  const r = req as WithDir;
  return (r[DIR] ??= mkdir(root, { recursive: true, mode: 0o700 }).then(() => mkdtemp(join(root, 'req-'))));
}

/** Removes the request's temporary folder and what is left in it (once: later calls find nothing). */
export async function removeRequestTempDir(req: FastifyRequest): Promise<void> {
  const r = req as WithDir;
  const dir = r[DIR];
  if (!dir) return;
  r[DIR] = undefined;
  const path = await dir.catch(() => undefined);
  if (path) await rm(path, { recursive: true, force: true }).catch(() => {});
}
