// A hung activity lapses (issue 17): Ada and Bo are in one instance; Ada's activity stops
// answering (its script spins forever). Her web app, still connected to the Gateway, notices that
// the bridge page on the activity's origin (same event loop) no longer answers its pings, leaves
// the instance and says so; Bo, whose activity runs normally for the same time, stays in.
// Screenshot test-results/activity-hung.png.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activityFrame, guildWithChannels, person, RESULTS, until, useActivityEnv } from './activityEventsHarness.ts';

const useEnv = useActivityEnv();

describe('a hung activity lapses (Chromium)', () => {
  it('the page whose activity stops answering leaves the instance; a healthy one stays', async () => {
    const env = useEnv();
    const { t } = env;
    const ada = await person(env, 'ada_hang', 'Ada Hang');
    const bo = await person(env, 'bo_hang', 'Bo Hang');
    const url = (await guildWithChannels(env, ada, 'Hangs', [bo])).activityUrl;
    await ada.page.goto(url);
    await bo.page.goto(url);
    const fa = await activityFrame(ada.page);
    const ready = (await until(fa, 'waiting', 90_000)).ready;
    await until(await activityFrame(bo.page), 'waiting', 90_000);
    const usersOf = async () => ((await t.req('GET', `/applications/${t.app.id}/activity-instances/${ready.instanceId}`, { token: t.app.botToken, bot: true })).body.users as string[]).sort();
    await expect.poll(usersOf, { timeout: 30_000 }).toEqual([ada.id, bo.id].sort());

    // Ada's activity spins forever (after this call returns).
    await fa.evaluate(() => void setTimeout(() => {
      for (;;);
    }, 50));
    await expect.poll(() => ada.page.textContent('.activity-page'), { timeout: 90_000 }).toContain('The activity stopped responding');
    expect(await ada.page.locator('#activity-frame').count()).toBe(0);
    await expect.poll(usersOf, { timeout: 30_000 }).toEqual([bo.id]);
    await ada.page.screenshot({ path: join(RESULTS, 'activity-hung.png') });
    // Bo's healthy activity answered its pings all along: still in, still shown.
    expect(await bo.page.locator('#activity-frame').count()).toBe(1);
    expect([...ada.errors, ...bo.errors]).toEqual([]);
    await ada.context.close();
    await bo.context.close();
  }, 300_000);
});
