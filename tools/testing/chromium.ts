/**
 * Headless Chromium for the browser tests: Debian's package (never a downloaded browser), with
 * the flags this machine needs, and a clear error when it is not installed (CI installs it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Without the background-networking flags, Chromium's calls home are refused by this closed network. */
const BASE_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Software WebGL (SwiftShader), which Chromium only allows with this flag. */
export const WEBGL_ARGS = ['--enable-unsafe-swiftshader'];
/** A fake microphone and camera that need no permission prompt, and audio that plays unprompted. */
export const FAKE_MEDIA_ARGS = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', '--autoplay-policy=no-user-gesture-required'];

export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}. Install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH; tests never download a browser.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...extraArgs] });
}

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

/** `npm test` builds first; a direct `vitest run` of one browser test may not have. */
export function ensureCoreWasmBuilt(): void {
  if (existsSync(join(REPO_ROOT, 'core-wasm/build/coreWasmBytes.js'))) return;
  execFileSync('npm', ['run', 'build', '--workspace=core-wasm'], { cwd: REPO_ROOT, stdio: 'inherit' });
}
