// Issue 19, the audio members in headless Chromium: a page bundling the client
// (test/fixtures/audioPage.ts) joins a lobby call with Chromium's fake microphone playing a WAV
// file we write (a 440 Hz tone, or digital silence).
// - setEchoCancellation / setAutomaticGainControl / setNoiseSuppression change the live capture
//   track's settings, read back from the track with getSettings(), while the call stays up.
// - The no-input callback fires for the silent microphone and never for the tone.
// - setAecDump records the call and offers a WAV download: the tone on the microphone side, and
//   a Node participant's 660 Hz on the playback side.
// - The version methods of the bundle match the package version and the build's commit.
// - The device-authorization panel of @social-layer/ui shows the code and link; Close fires the
//   client's closed callback. Screenshots go to test-results/.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, type Page } from 'playwright-core';
import { ensureCoreWasmBuilt, FAKE_MEDIA_ARGS, launchChromium } from '../../../tools/testing/chromium.ts';
import { startServer, type RunningServer } from '@social-layer/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallStatus, ErrorType } from '../src/index.ts';
import { connectGuest, newSecret, sleep, waitFor, type Guest } from './helpers.ts';
import { goertzel, spectralPeak, tone } from './voiceAudio.ts';
import { VoiceLab } from './voiceHelpers.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');
const resultsDir = join(repoRoot, 'test-results');
const PAGE = '/games/audio-test/';
const pkg = JSON.parse(readFileSync(join(here, '../package.json'), 'utf8')) as { version: string };

type AudioApi = {
  join(secret: string, threshold: number): Promise<{ userId: string; lobbyId: string }>;
  status(): { call: number | null; e2ee: boolean; sameCall: boolean };
  connected(): boolean;
  trackSettings(): { live: number; echoCancellation?: boolean; noiseSuppression?: boolean; autoGainControl?: boolean } | null;
  setEchoCancellation(on: boolean): Promise<void>;
  setAutomaticGainControl(on: boolean): Promise<void>;
  setNoiseSuppression(on: boolean): Promise<void>;
  badEcho(): Promise<number | string>;
  noInput(): boolean[];
  routes(): { picker: boolean; speaker: boolean; hasSelectAudioOutput: boolean };
  setAecDump(on: boolean): void;
  setLogDir(): string;
  versions(): { major: number; minor: number; patch: number; hash: string };
  openDeviceScreen(code: string): void;
  panelClosed(): number;
};
declare const audioTest: AudioApi;

let server: RunningServer;
let dataDir: string;
let appId: string;
let commit: string;
let toneBrowser: Browser;
let silentBrowser: Browser;
const guests: Guest[] = [];
const pageErrors: string[] = [];

/** A 16-bit mono 48 kHz WAV (Chromium loops it as the fake microphone). */
function wav(samples: Int16Array): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples.length * 2, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(48_000, 24);
  header.writeUInt32LE(96_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples.length * 2, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);
}

beforeAll(async () => {
  ensureCoreWasmBuilt();
  await mkdir(resultsDir, { recursive: true });
  dataDir = await mkdtemp(join(tmpdir(), 'sl-audio-browser-'));
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  const dist = join(dataDir, 'games', 'audio-test', 'dist');
  await mkdir(dist, { recursive: true });
  await build({
    entryPoints: [join(here, 'fixtures/audioPage.ts')],
    outfile: join(dist, 'bundle.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['ws', 'opusscript'],
    // The build's commit, as a release build of the SDK gets it.
    define: { __SOCIAL_LAYER_COMMIT__: JSON.stringify(commit) },
    logLevel: 'warning',
  });
  await writeFile(join(dist, 'index.html'), '<!doctype html><meta charset="utf-8"><title>Audio test</title><body style="margin:0;height:100vh;background:#203040;position:relative"><script type="module" src="bundle.js"></script></body>');
  const toneFile = join(dataDir, 'tone.wav');
  const silentFile = join(dataDir, 'silence.wav');
  await writeFile(toneFile, wav(tone(440, 4, 0.3)));
  await writeFile(silentFile, wav(new Int16Array(48_000 * 4)));
  server = await startServer({ port: 0, host: '127.0.0.1', dataDir, serveSamples: true, samplesDir: join(dataDir, 'games'), logLevel: 'error' });
  appId = (await server.createApplication({ name: 'Audio test' })).id;
  toneBrowser = await launchChromium([...FAKE_MEDIA_ARGS, `--use-file-for-fake-audio-capture=${toneFile}`]);
  silentBrowser = await launchChromium([...FAKE_MEDIA_ARGS, `--use-file-for-fake-audio-capture=${silentFile}`]);
}, 180_000);

afterAll(async () => {
  for (const g of guests) await g.client.destroy();
  await toneBrowser?.close();
  await silentBrowser?.close();
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function openPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 800, height: 500 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${server.url}${PAGE}?app=${appId}`);
  await page.waitForFunction(() => typeof audioTest !== 'undefined');
  return page;
}

async function joinCall(page: Page, secret: string, threshold = -100): Promise<void> {
  await page.evaluate(([s, t]) => audioTest.join(s as string, t as number), [secret, threshold] as const);
  await page.waitForFunction(() => audioTest.connected() && audioTest.trackSettings() !== null, undefined, { timeout: 20_000 });
}

describe('audio members in Chromium', { timeout: 90_000 }, () => {
  it('toggling echo cancellation (and gain control, noise suppression) changes the live track, without restarting the call', async () => {
    const page = await openPage(toneBrowser);
    await joinCall(page, newSecret());
    expect(await page.evaluate(() => audioTest.trackSettings())).toMatchObject({ live: 1, echoCancellation: true, autoGainControl: true, noiseSuppression: true });

    await page.evaluate(() => audioTest.setEchoCancellation(false));
    expect(await page.evaluate(() => audioTest.trackSettings())).toMatchObject({ live: 1, echoCancellation: false, autoGainControl: true });
    await page.evaluate(() => audioTest.setAutomaticGainControl(false));
    await page.evaluate(() => audioTest.setNoiseSuppression(false));
    expect(await page.evaluate(() => audioTest.trackSettings())).toMatchObject({ live: 1, echoCancellation: false, autoGainControl: false, noiseSuppression: false });
    await page.evaluate(() => audioTest.setEchoCancellation(true));
    expect(await page.evaluate(() => audioTest.trackSettings())).toMatchObject({ live: 1, echoCancellation: true });
    // The same call, still connected, all along.
    expect(await page.evaluate(() => audioTest.status())).toMatchObject({ call: CallStatus.Connected, sameCall: true });
    expect(await page.evaluate(() => audioTest.badEcho())).toBe(ErrorType.ValidationError);
    // The route picker is the browser's selectAudioOutput where it has one (Chromium has not).
    const routes = await page.evaluate(() => audioTest.routes());
    expect(routes).toEqual({ picker: routes.hasSelectAudioOutput, speaker: false, hasSelectAudioOutput: routes.hasSelectAudioOutput });
    // Browsers have no file system for logs: a clear refusal.
    expect(await page.evaluate(() => audioTest.setLogDir())).toMatch(new RegExp(`^${ErrorType.ValidationError}: setLogDir: a browser has no file system`));
    await page.context().close();
  });

  it('the no-input callback fires for a silent fake microphone and not for the tone', async () => {
    const [tonePage, silentPage] = await Promise.all([openPage(toneBrowser), openPage(silentBrowser)]);
    await Promise.all([joinCall(tonePage, newSecret(), -60), joinCall(silentPage, newSecret(), -60)]);
    await silentPage.waitForFunction(() => audioTest.noInput().length > 0, undefined, { timeout: 15_000 });
    expect(await silentPage.evaluate(() => audioTest.noInput())).toEqual([false]);
    // The tone has been captured at least as long as the silence took to be reported.
    await sleep(1500);
    expect(await tonePage.evaluate(() => audioTest.noInput())).toEqual([]);
    await Promise.all([tonePage.context().close(), silentPage.context().close()]);
  });

  it('an AEC dump of a call holds the tone (microphone) and the other participant (playback), as a download', async () => {
    const page = await openPage(toneBrowser);
    const secret = newSecret();
    await joinCall(page, secret);
    // A Node participant in the same call, speaking at 660 Hz.
    // Real `ws` sockets for voice (the Gateway's recording sockets expect JSON frames only).
    const lab = new VoiceLab();
    const bot = await connectGuest({ url: server.url, appId, restart: async () => undefined, close: async () => undefined }, undefined, { voice: { transports: ['websocket'], webSocket: lab.ctor as never } });
    guests.push(bot);
    const lobbyId = await bot.client.createOrJoinLobby(secret);
    const call = bot.client.startCallWithAudioCallbacks(lobbyId, null, null)!;
    await waitFor(() => call.getStatus() === CallStatus.Connected, 'the bot in the call', 20_000);
    await waitFor(() => call.isE2eeReady(), 'E2EE keys for the bot', 20_000);
    await page.waitForFunction(() => audioTest.status().e2ee, undefined, { timeout: 20_000 });

    await page.evaluate(() => audioTest.setAecDump(true));
    call.pushCapturedAudio(tone(660, 2, 0.3));
    await waitFor(() => call.getCapturedFramesQueued() === 0, 'the bot to speak', 10_000);
    await sleep(500);
    const [download] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => audioTest.setAecDump(false))]);
    expect(download.suggestedFilename()).toMatch(/^social-layer-aec-dump-\d+-\d+\.wav$/);
    const file = await readFile((await download.path())!);
    await writeFile(join(resultsDir, 'aec-dump-browser.wav'), file);
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    expect(file.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(view.getUint16(22, true)).toBe(2);
    const frames = view.getUint32(40, true) / 4;
    expect(frames).toBeGreaterThan(48_000 * 2);
    const left = new Int16Array(frames);
    const right = new Int16Array(frames);
    for (let i = 0; i < frames; i++) {
      left[i] = view.getInt16(44 + i * 4, true);
      right[i] = view.getInt16(46 + i * 4, true);
    }
    expect(Math.abs(spectralPeak(left) - 440)).toBeLessThanOrEqual(10);
    expect(Math.abs(spectralPeak(right) - 660)).toBeLessThanOrEqual(10);
    expect(goertzel(right, 660)).toBeGreaterThan(goertzel(right, 440) * 10);
    await page.context().close();
  });

  it('the bundle\'s version methods match the package version and the build\'s commit', async () => {
    const page = await openPage(toneBrowser);
    const [major, minor, patch] = pkg.version.split('.').map((n) => Number.parseInt(n, 10));
    expect(await page.evaluate(() => audioTest.versions())).toEqual({ major, minor, patch, hash: commit });
    await page.context().close();
  });

  it('the device-authorization panel shows the code and the activation link; Close fires the closed callback', async () => {
    const page = await openPage(toneBrowser);
    await page.evaluate(() => audioTest.openDeviceScreen('WDJB-MJHT'));
    const panel = page.locator('.sl-device-auth');
    await panel.waitFor({ state: 'visible' });
    expect(await panel.locator('.sl-device-auth-code').textContent()).toBe('WDJB-MJHT');
    const link = panel.locator('.sl-device-auth-link');
    expect(await link.getAttribute('href')).toBe(`${server.url}/activate?user_code=WDJB-MJHT`);
    expect(await link.textContent()).toBe(`${server.url.replace(/^https?:\/\//, '')}/activate`);
    await page.screenshot({ path: join(resultsDir, 'device-authorization-panel.png') });
    await panel.locator('.sl-device-auth-close').click();
    await panel.waitFor({ state: 'hidden' });
    await page.waitForFunction(() => audioTest.panelClosed() === 1);
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });
});
