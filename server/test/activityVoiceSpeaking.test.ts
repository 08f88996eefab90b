// The voice call beside an activity (issue 17), in Chromium with fake microphones: Ada and Bo are in
// a guild voice channel's call; Ada starts the channel's activity from its shelf and her call stays
// up beside the iframe (the server still has her in the channel well past the hand-over grace). Bo
// holds push-to-talk: Ada's activity (the unmodified embedded-app-sdk, subscribed with the channel's
// ID) gets SPEAKING_START {user_id: Bo, channel_id}, then SPEAKING_STOP when he lets go, and Ada's
// voice strip shows him speaking. Ada's Leave voice takes her out of the call and the activity:
// the instance (hers alone) ends and Bo's voice panel drops her; back in voice and in the activity,
// a disconnect from elsewhere (her voice state leaving the channel) ends the activity the same way. Screenshots test-results/activity-voice-*.png.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { activityFrame, guildWithChannels, person, RESULTS, results, until, useActivityEnv } from './activityEventsHarness.ts';

const useEnv = useActivityEnv();

describe('voice beside an activity (Chromium, fake microphones)', () => {
  it('keeps the call, forwards speaking start/stop, and leaving voice leaves the activity', async () => {
    const env = useEnv();
    const { t } = env;
    const ada = await person(env, 'ada_talk', 'Ada Talk');
    const g = await guildWithChannels(env, ada, 'Talkers');
    const { voice } = g;
    await guildServicesFor(t.server.store, env.bus).installBot(g.id, t.app.id, 0n);
    const bo = await person(env, 'bo_talk', 'Bo Talk');
    await g.join(bo);

    const voiceUrl = `${t.server.url}/app/guilds/${g.id}/channels/${voice}`;
    for (const p of [ada, bo]) {
      await p.page.goto(voiceUrl);
      await p.page.click('#join-voice', { timeout: 60_000 });
    }
    for (const p of [ada, bo]) {
      await expect.poll(() => p.page.getAttribute('#voice-panel', 'data-status'), { timeout: 90_000 }).toBe('4');
      await expect.poll(() => p.page.locator('#voice-participants [data-user-id]').count(), { timeout: 60_000 }).toBe(2);
    }
    const voiceStateOf = async (id: string) => (await t.req('GET', `/guilds/${g.id}/voice-states/${id}`, { token: bo.token })).body.channel_id ?? null;

    // Ada starts the activity from the shelf: the page changes, the call does not.
    await ada.page.click(`#activity-shelf li[data-application-id="${t.app.id}"] .activity-shelf-launch`, { timeout: 60_000 });
    await ada.page.waitForURL((u) => u.pathname === `/app/activity/${t.app.id}`);
    const fa = await activityFrame(ada.page);
    const r = await until(fa, 'waiting', 90_000);
    expect(r.ready).toMatchObject({ channelId: voice, guildId: g.id });
    await expect.poll(() => ada.page.getAttribute('#activity-voice', 'data-state'), { timeout: 30_000 }).toBe('in');
    await expect.poll(() => ada.page.locator('#activity-voice [data-user-id]').count(), { timeout: 30_000 }).toBe(2);
    // Named as the guild shows them (Bo is not in the instance, so his name comes from his membership).
    await expect.poll(() => ada.page.textContent('#activity-voice'), { timeout: 30_000 }).toContain('Bo Talk');
    // Well past the hand-over grace (5 s): still in the channel's call, on the server too.
    await ada.page.waitForTimeout(7_000);
    expect(await voiceStateOf(ada.id)).toBe(voice);
    expect(await ada.page.getAttribute('#activity-voice', 'data-state')).toBe('in');

    // VOICE_STATE_UPDATE still works beside it: both members of the call, at SUBSCRIBE.
    await expect.poll(async () => [...new Set((await results(fa)).voiceStates as string[])].sort(), { timeout: 30_000 }).toEqual([ada.id, bo.id].sort());
    // Nobody talks: no speaking event yet (the fake microphone beeps, but push-to-talk is off).
    expect((await results(fa)).speaking).toBeUndefined();
    // Bo holds V on his channel page: Ada's activity hears him start, in the SDK's shape.
    await bo.page.locator('#voice-status').click();
    await bo.page.keyboard.down('v');
    await expect.poll(async () => (await results(fa)).speaking, { timeout: 60_000 }).toEqual([['start', bo.id, voice]]);
    await expect.poll(() => ada.page.getAttribute(`#activity-voice [data-user-id="${bo.id}"]`, 'data-speaking'), { timeout: 30_000 }).toBe('true');
    await ada.page.screenshot({ path: join(RESULTS, 'activity-voice-speaking.png') });
    await bo.page.keyboard.up('v');
    await expect.poll(async () => (await results(fa)).speaking, { timeout: 60_000 }).toEqual([['start', bo.id, voice], ['stop', bo.id, voice]]);

    // The phone layout: the strip sits under the game, not over it.
    await ada.page.setViewportSize({ width: 390, height: 844 });
    await ada.page.waitForTimeout(500);
    const frameBox = (await ada.page.locator('#activity-frame').boundingBox())!;
    const stripBox = (await ada.page.locator('#activity-voice').boundingBox())!;
    expect(stripBox.y).toBeGreaterThanOrEqual(frameBox.y + frameBox.height - 1);
    expect(stripBox.x + stripBox.width).toBeLessThanOrEqual(391);
    await ada.page.screenshot({ path: join(RESULTS, 'activity-voice-phone.png') });
    await ada.page.setViewportSize({ width: 1280, height: 800 });

    // Leave voice: out of the call and the activity (back on the channel's page); the instance,
    // hers alone, ends; Bo's panel no longer lists her.
    const instanceId = r.ready.instanceId as string;
    await ada.page.click('#activity-leave-voice');
    await ada.page.waitForURL(voiceUrl, { timeout: 30_000 });
    await expect.poll(async () => (await t.req('GET', `/applications/${t.app.id}/activity-instances/${instanceId}`, { token: t.app.botToken, bot: true })).status, { timeout: 30_000 }).toBe(404);
    await expect.poll(() => bo.page.locator(`#voice-participants [data-user-id="${ada.id}"]`).count(), { timeout: 60_000 }).toBe(0);
    expect(await voiceStateOf(ada.id)).toBeNull();

    // Disconnected from voice elsewhere (here: the owner's own PATCH, as a moderator's would be):
    // her voice state leaves the channel, so the activity ends for her too.
    await ada.page.click('#join-voice', { timeout: 60_000 });
    await expect.poll(() => ada.page.getAttribute('#voice-panel', 'data-status'), { timeout: 90_000 }).toBe('4');
    await ada.page.click(`#activity-shelf li[data-application-id="${t.app.id}"] .activity-shelf-launch`, { timeout: 60_000 });
    const again = (await until(await activityFrame(ada.page), 'waiting', 90_000)).ready.instanceId as string;
    await expect.poll(() => ada.page.getAttribute('#activity-voice', 'data-state'), { timeout: 30_000 }).toBe('in');
    expect((await t.req('PATCH', `/guilds/${g.id}/members/${ada.id}`, { token: ada.token, body: { channel_id: null } })).status).toBe(200);
    await ada.page.waitForURL(voiceUrl, { timeout: 60_000 });
    await expect.poll(async () => (await t.req('GET', `/applications/${t.app.id}/activity-instances/${again}`, { token: t.app.botToken, bot: true })).status, { timeout: 30_000 }).toBe(404);
    expect([...ada.errors, ...bo.errors]).toEqual([]);
    await ada.context.close();
    await bo.context.close();
  }, 400_000);
});
