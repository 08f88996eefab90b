// U+0000 in text that reaches the database: PostgreSQL's text cannot hold it (it answered 500,
// "invalid byte sequence for encoding UTF8: 0x00") while SQLite stored it. Both storages refuse it
// alike, before anything is written: 400 50035 at the field (STRING_TYPE_INVALID_CHARACTER).
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer, webToken } from './harness.ts';

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

const NUL = 'a\u0000b';

for (const { name, config } of databaseConfigs()) {
  describe(`NUL characters on ${name}`, () => {
    it('guild, channel and role names, message and lobby message content, and a member search answer 50035, and nothing is stored', async () => {
      const t: TestServer = await startTestServer({ database: config(), rateLimits: false });
      try {
        const player = await t.guest('nul');
        const web = await webToken(t, player.userId);
        const field = (r: { status: number; body: any }, ...path: string[]) => {
          let node = r.body?.errors;
          for (const key of path) node = node?.[key];
          return [r.status, r.body?.code, node?._errors?.[0]?.code];
        };
        const refused = [400, 50035, 'STRING_TYPE_INVALID_CHARACTER'];

        expect(field(await t.req('POST', '/guilds', { token: web, body: { name: NUL } }), 'name')).toEqual(refused);
        const guild = (await t.req('POST', '/guilds', { token: web, body: { name: 'Clean' } })).body;
        expect(field(await t.req('PATCH', `/guilds/${guild.id}`, { token: web, body: { name: NUL } }), 'name')).toEqual(refused);
        expect(field(await t.req('POST', `/guilds/${guild.id}/channels`, { token: web, body: { name: NUL, type: 0 } }), 'name')).toEqual(refused);
        expect(field(await t.req('POST', `/guilds/${guild.id}/roles`, { token: web, body: { name: NUL } }), 'name')).toEqual(refused);
        const channel = (await t.req('GET', `/guilds/${guild.id}/channels`, { token: web })).body.find((c: { type: number }) => c.type === 0);
        expect(field(await t.req('POST', `/channels/${channel.id}/messages`, { token: web, body: { content: NUL } }), 'content')).toEqual(refused);
        expect(field(await t.req('POST', `/channels/${channel.id}/messages`, { token: web, body: { content: 'ok', embeds: [{ title: NUL }] } }), 'embeds', '0', 'title')).toEqual(refused);
        const search = await t.req('GET', `/guilds/${guild.id}/members/search?query=${encodeURIComponent(NUL)}`, { token: web });
        expect(field(search, 'query')).toEqual(refused);

        const lobby = (await t.req('PUT', '/lobbies', { token: player.token, body: { secret: 'nul-lobby' } })).body;
        expect(field(await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: player.token, body: { content: NUL } }), 'content')).toEqual(refused);
        expect(field(await t.req('PUT', '/lobbies', { token: player.token, body: { secret: 'nul-2', metadata: { k: NUL } } }), 'metadata', 'k')).toEqual(refused);
        expect(field(await t.req('PUT', '/lobbies', { token: player.token, body: { secret: 'nul-3', metadata: { [NUL]: 'v' } } }), 'metadata')).toEqual(refused);

        // Nothing half-written: the names are as they were, no message was stored.
        expect((await t.req('GET', `/guilds/${guild.id}`, { token: web })).body.name).toBe('Clean');
        expect((await t.req('GET', `/guilds/${guild.id}/roles`, { token: web })).body.map((r: { name: string }) => r.name)).toEqual(['@everyone']);
        expect((await t.req('GET', `/channels/${channel.id}/messages`, { token: web })).body).toEqual([]);
        expect((await t.req('GET', `/lobbies/${lobby.id}/messages`, { token: player.token })).body).toEqual([]);
      } finally {
        await t.close();
      }
    });
  });
}
