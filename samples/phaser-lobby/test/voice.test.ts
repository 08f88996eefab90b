/**
 * Voice in the sample, end to end in headless Chromium: two players (separate contexts) join
 * the lobby's call with the header button, A holds V (push-to-talk) with Chromium's fake
 * microphone, and B's speakers play non-silent audio while A's avatar shows the speaking ring;
 * after A releases V, B's speakers go quiet. Screenshots go to test-results/.
 *
 * Needs Debian's chromium at /usr/bin/chromium (or CHROMIUM_PATH); never downloads a browser.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FAKE_MEDIA_ARGS } from '../../../tools/testing/chromium.ts';
import { clickWorld, RESULTS_DIR, sampleSuite } from '../../../tools/testing/sampleServer.ts';

const t = sampleSuite(['phaser-lobby'], 'Phaser voice test', FAKE_MEDIA_ARGS);

/** A player's page, once the sample is in its lobby. */
async function openPlayer(name: string, url: string): Promise<Page> {
  const { page } = await t.open(name, url);
  await t.ready(page);
  return page;
}

function info(page: Page) {
  return page.evaluate(() => ({ userId: window.__socialLayerSample.userId!, lobbyId: window.__socialLayerSample.lobbyId! }));
}

function callState(page: Page) {
  return page.evaluate(() => {
    const call = window.__socialLayerSample.voice?.call;
    return call ? { status: call.getStatus(), e2ee: call.isE2eeReady(), level: call.getPlaybackLevel() } : null;
  });
}

/** What each side of the call is doing now, for a failure's message: which side keeps the ring on. */
async function diagnose(pages: Record<string, Page>, about: string): Promise<string> {
  const out: Record<string, unknown> = {};
  for (const [name, page] of Object.entries(pages)) {
    out[name] = await page.evaluate((id) => {
      const call = window.__socialLayerSample.voice?.call;
      return call && { mode: call.getAudioMode(), ptt: call.getPTTActive(), speaking: call.isSpeaking(id), ring: window.__socialLayerSample.isSpeakingShown(id), level: call.getPlaybackLevel(), stats: call.mediaStats, at: performance.now() };
    }, about);
  }
  return JSON.stringify(out);
}

describe('phaser-lobby voice in Chromium', () => {
  it('push-to-talk from one page is heard on the other, with the speaking ring', { timeout: 180_000 }, async () => {
    const a = await openPlayer('A', `${t.server.url}/games/phaser-lobby/`);
    const b = await openPlayer('B', a.url());
    const infoA = await info(a);
    const infoB = await info(b);
    expect(infoB.lobbyId).toBe(infoA.lobbyId);

    await a.locator('.sl-bar-voice').click();
    await b.locator('.sl-bar-voice').click();
    for (const page of [a, b]) {
      await expect.poll(() => callState(page), { timeout: 30_000 }).toMatchObject({ status: 4, e2ee: true });
    }
    await expect.poll(() => a.locator('.sl-bar-voice-hint').textContent(), { timeout: 10_000 }).toBe('Hold V to talk');
    // Chromium's fake devices are listed; the current ones are the defaults.
    const devices = await a.evaluate(async () => {
      const client = window.__socialLayerSample.client!;
      return {
        inputs: await client.getInputDevices(),
        outputs: await client.getOutputDevices(),
        input: await client.getCurrentInputDevice(),
      };
    });
    expect(devices.inputs.length).toBeGreaterThan(0);
    expect(devices.input.id).toBe('default');

    // Released: nothing goes out, B's speakers stay silent.
    await a.waitForTimeout(1500);
    expect((await callState(b))!.level).toBeLessThan(0.001);
    // Browsers carry media over the WebRTC data channel (answered by the server's libdatachannel).
    const call = t.server.voice.existingCall(infoA.lobbyId);
    expect([...call!.sessions.values()].map((s) => s.selectedProtocol)).toEqual(['webrtc', 'webrtc']);

    // Both walk to the middle of the field (the click also focuses A's game for the key).
    await clickWorld(b, 760, 420);
    await clickWorld(a, 560, 420);
    await expect
      .poll(async () => {
        const p = await b.evaluate((id) => window.__socialLayerSample.avatarPosition(id), infoA.userId);
        return p ? Math.hypot(p.x - 560, p.y - 420) : Infinity;
      }, { timeout: 20_000 })
      .toBeLessThan(4);

    // Once the avatars stand still both pages stop drawing: frames are drawn on demand, so a
    // software-rendered canvas does not take the main thread from the call's 20 ms clock.
    for (const page of [a, b]) await expect.poll(() => page.evaluate(() => window.__socialLayerSample.isDrawing()), { timeout: 15_000 }).toBe(false);

    // A holds V: the fake microphone's beeps reach B's speakers, and A's avatar lights up on B.
    await a.keyboard.down('v');
    let loudest = 0;
    await expect
      .poll(
        async () => {
          loudest = Math.max(loudest, (await callState(b))!.level);
          return loudest;
        },
        { timeout: 30_000, interval: 50 },
      )
      .toBeGreaterThan(0.01);
    await expect.poll(() => b.evaluate((id) => window.__socialLayerSample.isSpeakingShown(id), infoA.userId), { timeout: 10_000 }).toBe(true);
    await b.screenshot({ path: join(RESULTS_DIR, 'phaser-voice-listener.png') });
    await a.screenshot({ path: join(RESULTS_DIR, 'phaser-voice-speaker.png') });

    // Released again: A stops sending, and once B has played what arrived its ring goes off and B
    // goes quiet. On a loaded machine (the whole suite runs two workers) a page's 20 ms call clock
    // can run late and play what it holds seconds late; how late is the machine's, so each link of
    // the chain is checked on its own: A's sent count holds still, then B's received and decoded
    // counts, then the ring is off within 5 s (idle detection is 200 ms after the buffer empties).
    await a.keyboard.up('v');
    const released = await diagnose({ a, b }, infoA.userId);
    const fail = async (what: string, error: unknown) => {
      throw new Error(`${what}: at release ${released}, now ${await diagnose({ a, b }, infoA.userId)}`, { cause: error });
    };
    const stat = (page: Page, names: ('framesSent' | 'packetsReceived' | 'framesDecoded')[]) =>
      page.evaluate((keys) => keys.map((key) => window.__socialLayerSample.voice?.call?.mediaStats?.[key] ?? -1).join('/'), names);
    /** Resolves once `read` gives the same counts a whole second apart. */
    const stillFor1s = async (read: () => Promise<string>, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      for (let last = await read(); ; ) {
        await a.waitForTimeout(1_000);
        const now = await read();
        if (now === last) return;
        if (Date.now() > deadline) throw new Error(`still changing after ${timeoutMs} ms (${last} -> ${now})`);
        last = now;
      }
    };
    await stillFor1s(() => stat(a, ['framesSent']), 30_000).catch((error) => fail('A kept sending after release', error));
    await stillFor1s(() => stat(b, ['packetsReceived', 'framesDecoded']), 60_000).catch((error) => fail("B kept receiving or playing after A's sending stopped", error));
    await expect
      .poll(() => b.evaluate((id) => window.__socialLayerSample.isSpeakingShown(id), infoA.userId), { timeout: 5_000 })
      .toBe(false)
      .catch((error) => fail("A's speaking ring stayed on for B after the last frame was played", error));
    // Audio already captured may still drain on a loaded machine; what matters is that it stops:
    // within 10 s, a whole half second on B is silent.
    await expect
      .poll(
        async () => {
          let loudestAfter = 0;
          for (let i = 0; i < 5; i++) {
            loudestAfter = Math.max(loudestAfter, (await callState(b))!.level);
            await a.waitForTimeout(100);
          }
          return loudestAfter;
        },
        { timeout: 10_000, interval: 0 },
      )
      .toBeLessThan(0.001);
    expect(t.errors).toEqual([]);
  });
});
