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


describe('phaser-lobby voice in Chromium', () => {
  it('push-to-talk from one page is heard on the other, with the speaking ring', { timeout: 120_000 }, async () => {
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

    // Released again: B goes quiet and the ring goes off. Audio already queued on a loaded
    // machine (the whole suite runs two workers) drains first: the property is that it stops.
    await a.keyboard.up('v');
    await expect.poll(() => b.evaluate((id) => window.__socialLayerSample.isSpeakingShown(id), infoA.userId), { timeout: 20_000 }).toBe(false);
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
