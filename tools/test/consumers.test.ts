/**
 * The consumer matrix: the published packages as a game developer's project meets them, outside
 * the repository (a folder under the system's temp dir, no workspace or node_modules above it).
 * Every package is built, staged and published to a local registry (testing/publishedRegistry.ts);
 * one project installs them from there, with every setup's tools, in one `npm install`; each
 * setup then signs a guest in against a running server and says something in a lobby, which a
 * second guest (the repository's client) sees arrive:
 *
 * - plain Node ESM: the client, and the plugins' parts that need no DOM;
 * - TypeScript, strict, without skipLibCheck, with `moduleResolution` `bundler` and `nodenext`:
 *   `tsc` type-checks and compiles a consumer of the Client API types, and Node runs what it wrote;
 * - esbuild: the Node consumer bundled into one file, run;
 * - Vite, per engine, the project laid out as the engine's own starting point lays it out
 *   (Phaser's template-vite-ts with its vite/config.prod.mjs; for Babylon.js and PlayCanvas,
 *   `npm create vite`'s vanilla-ts, no config): the engine's sample built by Vite, served by the
 *   server, played in Chromium (the guest types in the lobby chat).
 *
 * The consumers' sources are in testing/consumers/.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationExternalAuthType, AuthorizationTokenType, Client } from '@social-layer/client';
import { startServer, type RunningServer } from '@social-layer/server';
import { readManifest } from '../src/release/packages.ts';
import { launchChromium, WEBGL_ARGS } from '../testing/chromium.ts';
import { waitReady, watchErrors } from '../testing/sampleServer.ts';
import { checkRegistryOnly, startPublishedRegistry, type PublishedRegistry } from '../testing/publishedRegistry.ts';

const run = promisify(execFile);
const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const FIXTURES = join(REPO_ROOT, 'tools/testing/consumers');
const RESULTS_DIR = join(REPO_ROOT, 'test-results');
const started = Date.now();
const note = (line: string) => process.stderr.write(`consumers [${Math.round((Date.now() - started) / 1000)} s] ${line}\n`);

let work: string;
let project: string;
let published: PublishedRegistry | undefined;
let server: RunningServer | undefined;
let applicationId: string;
let browser: Browser | undefined;
const observers: Client[] = [];

/** The version ranges a developer would write: the engines' as the samples name them, the tools' as the repository uses them. */
function projectManifest(): object {
  const sdk = readManifest('bindings/client').version;
  const root = readManifest('.');
  const engine = (sample: string, name: string) => readManifest(`samples/${sample}`).dependencies![name]!;
  return {
    name: 'consumer-matrix',
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies: {
      '@social-layer/babylon': sdk,
      '@social-layer/client': sdk,
      '@social-layer/phaser': sdk,
      '@social-layer/playcanvas': sdk,
      '@social-layer/protocol': sdk,
      '@social-layer/rpc': sdk,
      '@social-layer/ui': sdk,
      '@babylonjs/core': engine('babylon-lobby', '@babylonjs/core'),
      phaser: engine('phaser-lobby', 'phaser'),
      playcanvas: engine('playcanvas-lobby', 'playcanvas'),
    },
    devDependencies: {
      '@types/node': root.devDependencies!['@types/node']!,
      esbuild: root.devDependencies!.esbuild!,
      typescript: root.devDependencies!.typescript!,
      // The major the engines' Vite templates start from.
      vite: '^7.0.0',
    },
  };
}

/** Runs a command in the project (its own node_modules/.bin first); resolves to stdout, a failure says what it printed. */
async function sh(cwd: string, command: string, args: string[], timeout = 300_000): Promise<string> {
  const env = { ...published!.registry.env, PATH: `${join(project, 'node_modules/.bin')}:${process.env.PATH}` };
  try {
    const { stdout } = await run(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} in ${cwd} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

/** A second guest (the repository's client) in the lobby of `secret` on `apiBase`, to see what a consumer says there. */
async function observer(apiBase: string, appId: string, secret: string): Promise<{ lobbyId: string; said(text: string): Promise<string> }> {
  const client = new Client({ apiBase });
  observers.push(client);
  const heard: { text: string | undefined; authorId: string | undefined }[] = [];
  client.on('messageCreated', (messageId) => {
    const message = client.getMessageHandle(messageId);
    heard.push({ text: message?.content(), authorId: message?.authorId });
  });
  const token = await client.getProvisionalToken(appId, AuthenticationExternalAuthType.DeviceId, randomUUID());
  await client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
  await client.connect();
  const lobbyId = await client.createOrJoinLobby(secret);
  return {
    lobbyId,
    /** Resolves to the author of the message `text` once it arrives. */
    async said(text) {
      await expect.poll(() => heard.find((m) => m.text === text)?.authorId, { timeout: 30_000, message: `"${text}" to arrive` }).toBeDefined();
      return heard.find((m) => m.text === text)!.authorId!;
    },
  };
}

interface Said {
  userId: string;
  lobbyId: string;
  messageId: string;
}

/** Runs a Node consumer (`node <file> API APP SECRET TEXT`) while an observer waits in the lobby; checks the message arrived from it. */
async function nodeConsumerSays(file: string): Promise<Said & Record<string, unknown>> {
  const secret = `consumer-${randomBytes(6).toString('hex')}`;
  const watch = await observer(server!.url, applicationId, secret);
  const text = `hello from ${file} ${Date.now()}`;
  const out = JSON.parse(await sh(project, process.execPath, [file, server!.url, applicationId, secret, text], 60_000)) as Said & Record<string, unknown>;
  expect(out.lobbyId).toBe(watch.lobbyId);
  expect(await watch.said(text)).toBe(out.userId);
  return out;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sl-consumers-'));
  published = await startPublishedRegistry(work);
  note(`published to ${published.registry.url}`);
  project = join(work, 'project');
  await cp(FIXTURES, project, { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify(projectManifest(), null, 2) + '\n');
  await published.npm(project, ['install']);
  await checkRegistryOnly(project, published.registry.url);
  note('installed');
  server = await startServer({ port: 0, host: '127.0.0.1', dataDir: join(work, 'data'), samplesDir: join(work, 'games'), logLevel: 'warn' });
  applicationId = (await server.createApplication({ name: 'Consumer matrix' })).id;
}, 900_000);

afterAll(async () => {
  for (const client of observers) await client.destroy().catch(() => {});
  await browser?.close().catch(() => {});
  await server?.close();
  await published?.close();
  if (work) await rm(work, { recursive: true, force: true });
  note('done');
}, 60_000);

describe('the published packages in a developer project outside the repository', () => {
  it('plain Node ESM imports the client and the plugins without DOM parts; a guest signs in and says something in a lobby', { timeout: 120_000 }, async () => {
    const out = await nodeConsumerSays('node/consumer.mjs');
    expect(out.loaded).toEqual({ protocol: 'object', rpc: 'function', guestName: 'string', latestOnly: 'function', babylon: 'function', playcanvas: 'function' });
  });

  for (const resolution of ['bundler', 'nodenext'] as const) {
    it(`TypeScript (strict, no skipLibCheck, moduleResolution ${resolution}) type-checks a Client API consumer, and what tsc wrote runs`, { timeout: 240_000 }, async () => {
      const dir = join(project, 'typescript');
      const config = JSON.parse(await readFile(join(dir, `tsconfig.${resolution}.json`), 'utf8')) as { compilerOptions: Record<string, unknown> };
      expect(config.compilerOptions.strict).toBe(true);
      expect(config.compilerOptions.skipLibCheck).toBe(false);
      expect(String(config.compilerOptions.moduleResolution).toLowerCase()).toBe(resolution);
      await sh(dir, 'tsc', ['-p', `tsconfig.${resolution}.json`]);
      const out = await nodeConsumerSays(`typescript/out-${resolution}/consumer.js`);
      expect(out.content).toMatch(/^hello from /);
    });
  }

  it('esbuild bundles the Node consumer into one file that runs', { timeout: 120_000 }, async () => {
    const bundle = join(project, 'esbuild/consumer.mjs');
    // The banner is esbuild's recipe for an ES module bundle for Node with CommonJS inside (ws
    // requires Node's own modules): a `require` for them.
    const banner = "--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
    await sh(project, 'esbuild', ['node/consumer.mjs', '--bundle', '--platform=node', '--format=esm', banner, `--outfile=${bundle}`, '--log-level=warning']);
    // Everything is in it: no import of a package is left for Node to resolve.
    expect(await readFile(bundle, 'utf8')).not.toMatch(/from\s*["']@social-layer\//);
    await nodeConsumerSays('esbuild/consumer.mjs');
  });

  const VITE = [
    { engine: 'phaser', sample: 'phaser-lobby', args: ['build', '--config', 'vite/config.prod.mjs'] },
    { engine: 'babylon', sample: 'babylon-lobby', args: ['build', '--base', './'] },
    { engine: 'playcanvas', sample: 'playcanvas-lobby', args: ['build', '--base', './'] },
  ];
  for (const { engine, sample, args } of VITE) {
    it(`Vite builds the ${engine} game as the engine's template sets a project up; in Chromium a guest signs in and chats in the lobby`, { timeout: 400_000 }, async () => {
      const dir = join(project, 'vite', engine);
      await mkdir(dir, { recursive: true });
      await cp(join(REPO_ROOT, 'samples', sample, 'src'), join(dir, 'src'), { recursive: true });
      const page = (await readFile(join(REPO_ROOT, 'samples', sample, 'index.html'), 'utf8')).replace('src="./bundle.js"', 'src="/src/main.ts"');
      expect(page).toContain('src="/src/main.ts"');
      await writeFile(join(dir, 'index.html'), page);
      const name = `vite-${engine}`;
      const outDir = join(work, 'games', name, 'dist');
      await sh(dir, 'vite', [...args, '--outDir', outDir, '--emptyOutDir']);
      expect((await readdir(join(outDir, 'assets'))).some((f) => f.endsWith('.js'))).toBe(true);
      note(`vite built ${engine}`);

      // The server serves what is built when it starts: one for this game.
      const games = await startServer({ port: 0, host: '127.0.0.1', dataDir: join(work, `data-${engine}`), samplesDir: join(work, 'games'), logLevel: 'warn' });
      try {
        await games.createApplication({ name: `Vite ${engine}` });
        browser ??= await launchChromium(WEBGL_ARGS);
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const errors: string[] = [];
        try {
          const secret = `vite-${randomBytes(6).toString('hex')}`;
          const tab = await context.newPage();
          watchErrors(tab, engine, errors);
          await tab.goto(`${games.url}/games/${name}/?lobby=${secret}`);
          const info = await waitReady(tab, errors);
          // A guest of the application the page uses (what /games/config.json names), in its lobby.
          const config = (await (await fetch(`${games.url}/games/config.json`)).json()) as { applicationId: string };
          const watch = await observer(games.url, config.applicationId, secret);
          expect(watch.lobbyId).toBe(info.lobbyId);
          const text = `hello from Vite and ${engine} ${Date.now()}`;
          await tab.locator('.sl-chat-input').fill(text);
          await tab.locator('.sl-chat-input').press('Enter');
          expect(await watch.said(text)).toBe(info.userId);
          await mkdir(RESULTS_DIR, { recursive: true });
          await tab.screenshot({ path: join(RESULTS_DIR, `consumers-vite-${engine}.png`) });
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
      } finally {
        await games.close();
      }
      expect(existsSync(join(outDir, 'index.html'))).toBe(true);
    });
  }
});
