/**
 * A prebuilt-binary mirror on loopback for the publishing test. better-sqlite3 installs through
 * prebuild-install, which downloads a prebuilt binary from its release host and compiles from
 * source (minutes on a loaded 2-core machine) when it cannot; that host is out of reach here.
 * prebuild-install honours a mirror (`npm_config_better_sqlite3_binary_host`), the way companies
 * serve binaries to closed networks: this one serves the binary the repository's own install
 * built, packed as prebuild-install expects, for that version on this Node and platform only
 * (anything else is a 404, and prebuild-install falls back to compiling).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export interface PrebuildMirror {
  /** Environment entries that point prebuild-install at this mirror (empty when there is nothing to serve). */
  env: Record<string, string>;
  /** Paths asked for, for a test's log. */
  requests: string[];
  close(): Promise<void>;
}

export async function startPrebuildMirror(scratch: string): Promise<PrebuildMirror> {
  const pkgDir = join(REPO_ROOT, 'node_modules/better-sqlite3');
  const binary = join(pkgDir, 'build/Release/better_sqlite3.node');
  const requests: string[] = [];
  if (!existsSync(binary)) return { env: {}, requests, close: async () => {} };
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const tarball = join(scratch, 'better-sqlite3-prebuild.tar.gz');
  execFileSync('tar', ['-czf', tarball, '-C', pkgDir, 'build/Release/better_sqlite3.node']);
  const bytes = readFileSync(tarball);
  const wanted = `/v${version}/better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.method === 'GET' && req.url === wanted) {
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length });
      res.end(bytes);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    env: { npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${port}` },
    requests,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
