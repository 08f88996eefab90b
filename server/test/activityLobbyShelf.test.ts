// The lobby shelf of the web app (issue 17): Ada and Bo are members of one of the game's lobbies
// (made by the game's backend); the home page lists it under "Game lobbies" with Start; Ada starts
// the activity there (the unmodified SDK gets the lobby as its channel, no guild) and Bo, on a
// phone-sized page, sees Join (1) and joins the same instance (kind lobby). Screenshots
// test-results/activity-lobby-shelf-*.png.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activityFrame, person, RESULTS, until, useActivityEnv } from './activityEventsHarness.ts';

const useEnv = useActivityEnv();

describe('lobby shelf in the web app (Chromium)', () => {
  it('lists the game lobbies the user is in; Start launches in the lobby, Join joins its instance', async () => {
    const env = useEnv();
    const { t } = env;
    const ada = await person(env, 'ada_lobby', 'Ada Lobby');
    const bo = await person(env, 'bo_lobby', 'Bo Lobby', { viewport: { width: 390, height: 844 } });
    // Before any lobby: no shelf on the home page.
    await ada.page.waitForSelector('#home');
    expect(await ada.page.locator('#lobby-shelf').count()).toBe(0);
    const lobby = await t.req('POST', '/lobbies', { token: t.app.botToken, bot: true, body: { members: [{ id: ada.id }, { id: bo.id }] } });
    expect(lobby.status).toBe(200);
    const lobbyId = lobby.body.id as string;

    await ada.page.reload();
    const row = `#lobby-shelf li[data-lobby-id="${lobbyId}"]`;
    await ada.page.waitForSelector(row, { timeout: 60_000 });
    expect(await ada.page.textContent(row)).toContain('2 members');
    expect(await ada.page.textContent(`${row} .lobby-shelf-launch`)).toBe('Start');
    await ada.page.screenshot({ path: join(RESULTS, 'activity-lobby-shelf-home.png') });
    await ada.page.click(`${row} .lobby-shelf-launch`);
    await ada.page.waitForURL((u) => u.pathname === `/app/activity/${t.app.id}` && u.searchParams.get('lobby_id') === lobbyId);
    const fa = await activityFrame(ada.page);
    const ra = await until(fa, 'waiting', 90_000);
    expect(ra.ready).toMatchObject({ channelId: lobbyId, guildId: null });
    const instance = await t.req('GET', `/applications/${t.app.id}/activity-instances/${ra.ready.instanceId}`, { token: t.app.botToken, bot: true });
    expect(instance.body.location).toMatchObject({ kind: 'lobby', channel_id: lobbyId });
    // No voice strip for a lobby (the web app has no lobby voice).
    expect(await ada.page.locator('#activity-voice').count()).toBe(0);

    await bo.page.reload();
    await bo.page.waitForSelector(`${row} .lobby-shelf-launch`, { timeout: 60_000 });
    await expect.poll(() => bo.page.textContent(`${row} .lobby-shelf-launch`), { timeout: 30_000 }).toBe('Join (1)');
    await bo.page.screenshot({ path: join(RESULTS, 'activity-lobby-shelf-phone.png') });
    // The row fits the phone's width (nothing cut off to the right).
    const box = (await bo.page.locator(`${row} .lobby-shelf-launch`).boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await bo.page.click(`${row} .lobby-shelf-launch`);
    const fb = await activityFrame(bo.page);
    const rb = await until(fb, 'waiting', 90_000);
    expect(rb.ready.instanceId).toBe(ra.ready.instanceId);
    await expect
      .poll(async () => ((await t.req('GET', `/applications/${t.app.id}/activity-instances/${ra.ready.instanceId}`, { token: t.app.botToken, bot: true })).body.users as string[]).sort(), { timeout: 30_000 })
      .toEqual([ada.id, bo.id].sort());
    expect([...ada.errors, ...bo.errors]).toEqual([]);
    await ada.context.close();
    await bo.context.close();
  }, 300_000);
});
