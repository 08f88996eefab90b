// Host events and platforms of an activity in Chromium (issue 17), with the unmodified SDK:
// ORIENTATION_UPDATE follows the page's viewport (landscape at first, portrait once the window is
// taller than wide, nothing new for a resize that keeps it portrait), ACTIVITY_LAYOUT_MODE_UPDATE is
// focused; RELATIONSHIP_UPDATE reaches an activity that authenticated with relationships.read when a
// friend request comes in (type 3) and when it is withdrawn (type 0). Supported platforms are enforced:
// on an Android phone an activity that supports only the web is refused with a plain notice and
// nobody joins; once the activity supports Android the same page launches it (SDK platform mobile).
// Screenshots test-results/activity-events-*.png.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ActivityService } from '../src/activities/ActivityService.ts';
import { UrlPolicy } from '../src/config/urlPolicy.ts';
import { activityFrame, guildWithChannels, person, RESULTS, results, until, useActivityEnv } from './activityEventsHarness.ts';

const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';

const useEnv = useActivityEnv();

describe('activity host events and platforms (Chromium)', () => {
  it('orientation follows the viewport, relationship changes reach the activity, unsupported platforms are refused', async () => {
    const env = useEnv();
    const { t } = env;
    const ada = await person(env, 'ada_ev', 'Ada Ev');
    const g = await guildWithChannels(env, ada, 'Events');
    const { activityUrl } = g;
    const usersOf = async (id: string) => (await t.req('GET', `/applications/${t.app.id}/activity-instances/${id}`, { token: t.app.botToken, bot: true })).body.users as string[];

    await ada.page.goto(activityUrl);
    const fa = await activityFrame(ada.page);
    const r = await until(fa, 'waiting', 90_000);
    expect(r.ready.platform).toBe('desktop');
    await expect.poll(async () => (await results(fa)).orientation, { timeout: 30_000 }).toEqual([[1, 'landscape']]);
    expect((await results(fa)).layoutMode).toEqual([0]);
    // Taller than wide: portrait. A resize that stays portrait sends nothing new.
    await ada.page.setViewportSize({ width: 700, height: 1000 });
    await expect.poll(async () => (await results(fa)).orientation, { timeout: 30_000 }).toEqual([[1, 'landscape'], [0, 'portrait']]);
    await ada.page.setViewportSize({ width: 720, height: 1000 });
    await ada.page.waitForTimeout(1_500);
    expect((await results(fa)).orientation).toEqual([[1, 'landscape'], [0, 'portrait']]);
    await ada.page.screenshot({ path: join(RESULTS, 'activity-events-portrait.png') });
    await ada.page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(async () => (await results(fa)).orientation, { timeout: 30_000 }).toEqual([[1, 'landscape'], [0, 'portrait'], [1, 'landscape']]);

    // RELATIONSHIP_UPDATE: the activity authenticates with relationships.read (consent in the web app).
    await fa.evaluate(() => void (window as any).step('relationships'));
    await ada.page.waitForSelector('#activity-consent', { timeout: 60_000 });
    await ada.page.click('#activity-consent-allow');
    await until(fa, 'relationshipsDone', 60_000);
    const bo = await person(env, 'bo_ev', 'Bo Ev');
    expect((await t.req('POST', '/users/@me/relationships', { token: bo.token, body: { username: 'ada_ev' } })).status).toBe(204);
    await expect.poll(async () => (await results(fa)).relationships, { timeout: 60_000 }).toEqual([[3, bo.id]]);
    expect((await t.req('DELETE', `/users/@me/relationships/${ada.id}`, { token: bo.token })).status).toBe(204);
    await expect.poll(async () => (await results(fa)).relationships, { timeout: 60_000 }).toEqual([[3, bo.id], [0, bo.id]]);
    await ada.page.screenshot({ path: join(RESULTS, 'activity-events-desktop.png') });

    // An Android phone, in the guild: the activity supports only the web, so the launch is refused
    // with a notice that says why, and the instance stays Ada's alone.
    const cy = await person(env, 'cy_ev', 'Cy Ev', { viewport: { width: 412, height: 915 }, userAgent: ANDROID_UA, isMobile: true, hasTouch: true });
    await g.join(cy);
    await cy.page.goto(activityUrl);
    await cy.page.waitForSelector('.activity-page .ui-notice, .activity-page [role="alert"], .activity-page', { timeout: 60_000 });
    await expect.poll(() => cy.page.textContent('.activity-page'), { timeout: 60_000 }).toContain('This activity is not available on Android. Supported platforms: web.');
    expect(await cy.page.locator('#activity-frame').count()).toBe(0);
    await cy.page.screenshot({ path: join(RESULTS, 'activity-events-android-refused.png') });
    expect(await usersOf(r.ready.instanceId)).toEqual([ada.id]);

    // The activity adds Android: the same phone launches it (the SDK is told mobile).
    await new ActivityService(t.server.store, new UrlPolicy(true)).updateSettings(t.app.id, { supported_platforms: ['web', 'android'] });
    await cy.page.reload();
    const fc = await activityFrame(cy.page);
    const rc = await until(fc, 'waiting', 90_000);
    expect(rc.ready).toMatchObject({ platform: 'mobile', instanceId: r.ready.instanceId });
    expect((await results(fc)).orientation).toEqual([[0, 'portrait']]);
    await cy.page.screenshot({ path: join(RESULTS, 'activity-events-android.png') });
    await expect.poll(async () => (await usersOf(r.ready.instanceId)).sort(), { timeout: 30_000 }).toEqual([ada.id, cy.id].sort());
    expect([...ada.errors, ...bo.errors, ...cy.errors]).toEqual([]);
    for (const p of [ada, bo, cy]) await p.context.close();
  }, 400_000);
});
