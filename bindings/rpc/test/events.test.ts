// Events the companion relays from the player's Gateway session to subscribed IPC clients:
// RELATIONSHIP_UPDATE, ACTIVITY_JOIN_REQUEST (answered with SEND_ACTIVITY_JOIN_INVITE or
// dismissed with CLOSE_ACTIVITY_REQUEST), ACTIVITY_INVITE, and CURRENT_USER_UPDATE (relayed from the
// Gateway's USER_UPDATE when the player changes their own user object).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient, RpcErrorCode } from '../src/index.ts';
import { type Account, type Env, signedInAccount, startCompanion, startEnv, waitFor } from './helpers.ts';

let env: Env;
let player: Account;
let mate: Account;
let companion: Awaited<ReturnType<typeof startCompanion>>;
let rpc: RpcClient;
const events: [string, any][] = [];

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'evt_player');
  mate = await signedInAccount(env, 'evt_mate');
  companion = await startCompanion(env, [player.token]);
  rpc = new RpcClient({ clientId: env.app.id, env: { XDG_RUNTIME_DIR: companion.dir } });
  await rpc.connect();
  await rpc.request('AUTHENTICATE', { access_token: player.token });
  for (const evt of ['RELATIONSHIP_UPDATE', 'ACTIVITY_JOIN_REQUEST', 'ACTIVITY_INVITE', 'CURRENT_USER_UPDATE']) {
    await rpc.request('SUBSCRIBE', {}, evt);
    rpc.on(evt, (d) => events.push([evt, d]));
  }
});

afterAll(async () => {
  await rpc?.close();
  await companion?.companion.stop();
  await env?.close();
});

const next = (evt: string, pred: (d: any) => boolean) => waitFor(() => events.find(([e, d]) => e === evt && pred(d))?.[1], evt);

describe('relayed events', () => {
  it('RELATIONSHIP_UPDATE for a friend request and its acceptance', async () => {
    expect((await env.api('PUT', `/users/@me/relationships/${player.userId}`, mate.token, {})).status).toBe(204);
    expect(await next('RELATIONSHIP_UPDATE', (d) => d.user?.id === mate.userId && d.type === 3)).toMatchObject({ user: { username: 'evt_mate' } });
    expect((await env.api('PUT', `/users/@me/relationships/${mate.userId}?type=3`, player.token, {})).status).toBe(204);
    await next('RELATIONSHIP_UPDATE', (d) => d.user?.id === mate.userId && d.type === 1);
  });

  it('ACTIVITY_JOIN_REQUEST from a friend; CLOSE_ACTIVITY_REQUEST dismisses it; SEND_ACTIVITY_JOIN_INVITE answers the next', async () => {
    await rpc.request('SET_ACTIVITY', { pid: process.pid, activity: { details: 'Hosting', party: { id: 'party-evt', size: [1, 4] }, secrets: { join: 'join-evt' } } });
    const ask = () => env.api('POST', `/users/${player.userId}/activity-join-requests`, mate.token, {});
    expect((await ask()).status).toBe(200);
    await next('ACTIVITY_JOIN_REQUEST', (d) => d.user?.id === mate.userId);
    expect(await rpc.request('CLOSE_ACTIVITY_REQUEST', { user_id: mate.userId })).toBeNull();
    await expect(rpc.request('SEND_ACTIVITY_JOIN_INVITE', { user_id: mate.userId })).rejects.toMatchObject({ code: RpcErrorCode.InvalidUser });

    events.length = 0;
    expect((await ask()).status).toBe(200);
    await next('ACTIVITY_JOIN_REQUEST', (d) => d.user?.id === mate.userId);
    expect(await rpc.request('SEND_ACTIVITY_JOIN_INVITE', { user_id: mate.userId })).toBeNull();
    const invites = await env.api('GET', '/users/@me/activity-invites', mate.token);
    expect(invites.body).toEqual(expect.arrayContaining([expect.objectContaining({ sender_id: player.userId, type: 1, party_id: 'party-evt' })]));
    // CLOSE_ACTIVITY_JOIN_REQUEST is the other spelling of the same command.
    expect(await rpc.request('CLOSE_ACTIVITY_JOIN_REQUEST', { user_id: mate.userId })).toBeNull();
  });

  it('CURRENT_USER_UPDATE when the player changes their display name; a friend\'s change is not relayed', async () => {
    // Full accounts rename themselves on the platform (the web app), not through a game's token.
    expect((await env.api('PATCH', '/users/@me', mate.web, { global_name: 'Mate Renamed' })).status).toBe(200);
    expect((await env.api('PATCH', '/users/@me', player.web, { global_name: 'Player One' })).status).toBe(200);
    const update = await next('CURRENT_USER_UPDATE', (d) => d.global_name === 'Player One');
    expect(update).toMatchObject({ id: player.userId, username: 'evt_player', global_name: 'Player One' });
    expect(JSON.stringify(update)).not.toContain(player.token);
    expect(events.some(([e, d]) => e === 'CURRENT_USER_UPDATE' && d.id === mate.userId)).toBe(false);
  });

  it('ACTIVITY_INVITE when a friend invites the player', async () => {
    expect((await env.api('PUT', '/users/@me/activities', mate.token, { details: 'Raid', party: { id: 'party-mate', size: [1, 5] }, secrets: { join: 'join-mate' } })).status).toBe(200);
    expect((await env.api('POST', `/users/${player.userId}/activity-invites`, mate.token, { content: 'come' })).status).toBe(200);
    const invite = await next('ACTIVITY_INVITE', (d) => d.user?.id === mate.userId);
    expect(invite).toMatchObject({ type: 1, activity: { party: { id: 'party-mate' } } });
  });
});
