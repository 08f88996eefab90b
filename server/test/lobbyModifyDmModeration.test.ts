import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';

/**
 * Modify Lobby (PATCH /lobbies/{id}) and the document's moderation-metadata route for a game DM
 * named by its two users (PUT /partner-sdk/dms/{user_id_1}/{user_id_2}/messages/{id}/
 * moderation-metadata), on SQLite and PostgreSQL, with the game's SDK sessions on raw sockets.
 */
let t: TestServer;
const sockets: RawGateway[] = [];
const bot = () => ({ token: t.app.botToken, bot: true });

async function player(name: string): Promise<{ token: string; userId: string; gw: RawGateway }> {
  const g = await t.guest(name);
  const gw = await RawGateway.open(t.server);
  sockets.push(gw);
  await gw.identify(g.token);
  return { token: g.token, userId: g.userId, gw };
}

afterAll(async () => {
  await dropTestSchemas();
});

describe.each(databaseConfigs())('lobby modify and DM moderation on $name', ({ config }) => {
  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: config() });
  });
  afterAll(async () => {
    for (const s of sockets.splice(0)) s.terminate();
    await t.close();
    cleanupTempDirs();
  });

  it('PATCH /lobbies/{id} sets metadata and the idle timeout, and `members` replaces the member list', async () => {
    const [ada, bo, cy] = [await player('Ada'), await player('Bo'), await player('Cy')];
    const lobby = (await t.req('POST', '/lobbies', { ...bot(), body: { metadata: { map: 'dunes' }, members: [{ id: ada.userId }, { id: bo.userId }] } })).body;
    const patched = await t.req('PATCH', `/lobbies/${lobby.id}`, { ...bot(), body: { metadata: { map: 'forest' }, idle_timeout_seconds: 600, members: [{ id: ada.userId, metadata: { team: 'red' } }, { id: cy.userId, flags: 1 }] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: lobby.id, application_id: t.app.id, metadata: { map: 'forest' } });
    expect(patched.body.members.map((m: { id: string }) => m.id).sort()).toEqual([ada.userId, cy.userId].sort());
    expect(patched.body.members.find((m: { id: string }) => m.id === ada.userId).metadata).toEqual({ team: 'red' });
    expect(patched.body.members.find((m: { id: string }) => m.id === cy.userId).flags).toBe(1);
    // Stored: the idle timeout and the metadata.
    const row = await t.server.store.lobbies.get(lobby.id);
    expect([row?.idle_timeout_seconds, row?.metadata && JSON.parse(row.metadata)]).toEqual([600, { map: 'forest' }]);
    // Bo was left out: removed, and told; Cy was added; Ada hears the new metadata.
    await bo.gw.next((f) => f.t === 'LOBBY_DELETE' && f.d.id === lobby.id);
    await cy.gw.next((f) => f.t === 'LOBBY_CREATE' && f.d.id === lobby.id);
    await ada.gw.next((f) => f.t === 'LOBBY_UPDATE' && f.d.id === lobby.id && f.d.metadata?.map === 'forest');
    await ada.gw.next((f) => f.t === 'LOBBY_MEMBER_REMOVE' && f.d.member.id === bo.userId);

    // Metadata null clears it; members left out keeps them.
    const cleared = await t.req('PATCH', `/lobbies/${lobby.id}`, { ...bot(), body: { metadata: null } });
    expect(cleared.body.metadata).toBeNull();
    expect(cleared.body.members).toHaveLength(2);
  });

  it('PATCH /lobbies/{id} refusals: another application\'s or an unknown lobby (10031), a player token, bad bodies', async () => {
    const ada = await player('Ada2');
    const lobby = (await t.req('POST', '/lobbies', { ...bot(), body: { members: [{ id: ada.userId }] } })).body;
    const unknown = await t.req('PATCH', '/lobbies/123456789012345678', { ...bot(), body: { metadata: {} } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(10031);
    expect((await t.req('PATCH', `/lobbies/${lobby.id}`, { token: ada.token, body: { metadata: {} } })).status).toBe(403);
    expect((await t.req('PATCH', `/lobbies/${lobby.id}`, { ...bot(), body: { idle_timeout_seconds: 1 } })).body.code).toBe(50035);
    expect((await t.req('PATCH', `/lobbies/${lobby.id}`, { ...bot(), body: { members: [{ id: ada.userId }, { id: ada.userId }] } })).body.code).toBe(50035);
    const flags = await t.req('PATCH', `/lobbies/${lobby.id}`, { ...bot(), body: { flags: 1 } });
    expect(flags.status).toBe(400);
    expect(flags.body.errors.flags._errors[0].code).toBe('UNSUPPORTED');
    // null for the fields this server does not keep is accepted.
    expect((await t.req('PATCH', `/lobbies/${lobby.id}`, { ...bot(), body: { flags: null, override_event_webhooks_url: null } })).status).toBe(200);
    expect((await t.req('PATCH', `/lobbies/${lobby.id}`, { ...bot(), body: { members: [{ id: '123456789012345678' }] } })).body.code).toBe(10013);
  });

  it('PUT /partner-sdk/dms/{a}/{b}/messages/{id}/moderation-metadata sets a game DM\'s moderation metadata, the users in either order', async () => {
    const [dee, eli] = [await player('Dee'), await player('Eli')];
    expect((await t.req('PUT', `/users/@me/relationships/${eli.userId}`, { token: dee.token, body: {} })).status).toBe(204);
    expect((await t.req('PUT', `/users/@me/relationships/${dee.userId}?type=3`, { token: eli.token, body: {} })).status).toBe(204);
    const sent = (await t.req('POST', `/users/${eli.userId}/messages`, { token: dee.token, body: { content: 'gg' } })).body;
    const put = await t.req('PUT', `/partner-sdk/dms/${eli.userId}/${dee.userId}/messages/${sent.id}/moderation-metadata`, { ...bot(), body: { verdict: 'clean' } });
    expect(put.status).toBe(204);
    await eli.gw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === sent.id && f.d.moderation_metadata?.verdict === 'clean');
    const history = (await t.req('GET', `/users/${eli.userId}/messages`, { token: dee.token })).body;
    expect(history.find((m: { id: string }) => m.id === sent.id).moderation_metadata).toEqual({ verdict: 'clean' });

    // Another pair of users, a player's token, too many keys.
    const other = await player('Fay');
    const wrong = await t.req('PUT', `/partner-sdk/dms/${other.userId}/${dee.userId}/messages/${sent.id}/moderation-metadata`, { ...bot(), body: { verdict: 'x' } });
    expect([wrong.status, wrong.body.code]).toEqual([404, 10008]);
    expect((await t.req('PUT', `/partner-sdk/dms/${eli.userId}/${dee.userId}/messages/${sent.id}/moderation-metadata`, { token: dee.token, body: {} })).status).toBe(403);
    expect((await t.req('PUT', `/partner-sdk/dms/${eli.userId}/${dee.userId}/messages/${sent.id}/moderation-metadata`, { ...bot(), body: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' } })).body.code).toBe(50035);
  });
});
