import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Issue 13, commands: global and guild commands over REST on SQLite and PostgreSQL: create (an
 * upsert by name and type), get, list, edit, delete, bulk overwrite; every limit and field rule
 * refused with its public code (30032, 50035 with the field path) and nothing written.
 */
for (const db of databaseConfigs()) {
  describe(`application commands (${db.name})`, () => {
    let t: TestServer;
    let guildId: string;
    const count = async () => Number((await t.server.store.database.db.selectFrom('application_commands').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const post = (body: unknown, path = `/applications/${t.app.id}/commands`) => t.req('POST', path, { token: t.app.botToken, bot: true, body });

    beforeAll(async () => {
      t = await startTestServer({ database: db.config() });
      const owner = await t.guest('Owner');
      const services = guildServicesFor(t.server.store, undefined as never);
      guildId = (await services.guilds.createGuild(owner.userId, { name: 'Commands' })).id;
      await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
    });
    afterAll(async () => {
      await t?.close();
      await dropTestSchemas();
      cleanupTempDirs();
    });

    it('creates, gets, lists, edits and deletes global and guild commands in the public shape', async () => {
      const created = await post({ name: 'roll', description: 'Roll dice', options: [{ type: 4, name: 'sides', description: 'Sides', required: true, min_value: 2, max_value: 100 }, { type: 3, name: 'label', description: 'Label', choices: [{ name: 'Red', value: 'red' }] }], default_member_permissions: '0', contexts: [0], integration_types: [0, 1], name_localizations: { fr: 'lancer' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ application_id: t.app.id, type: 1, name: 'roll', description: 'Roll dice', default_member_permissions: '0', contexts: [0], integration_types: [0, 1], nsfw: false, name_localizations: { fr: 'lancer' } });
      expect(created.body.options[0]).toMatchObject({ type: 4, name: 'sides', required: true, min_value: 2 });
      // Same name and type: replaced, same ID, 200.
      const again = await post({ name: 'roll', description: 'Roll more dice' });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(created.body.id);
      expect(again.body.description).toBe('Roll more dice');
      const user = await post({ type: 2, name: 'High Five' });
      expect(user.status).toBe(201);
      expect(user.body.description).toBe('');
      const list = await t.req('GET', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true });
      expect(list.body.map((c: { name: string }) => c.name).sort()).toEqual(['High Five', 'roll']);
      expect(list.body[0].name_localizations).toBeUndefined();
      const withLoc = await t.req('GET', `/applications/${t.app.id}/commands?with_localizations=true`, { token: t.app.botToken, bot: true });
      expect(withLoc.body.find((c: { name: string }) => c.name === 'roll')).toHaveProperty('name_localizations');
      const edited = await t.req('PATCH', `/applications/${t.app.id}/commands/${created.body.id}`, { token: t.app.botToken, bot: true, body: { description: 'Edited' } });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ name: 'roll', description: 'Edited' });
      expect(edited.body.version).not.toBe(created.body.version);
      const g = await post({ name: 'guildonly', description: 'Here only' }, `/applications/${t.app.id}/guilds/${guildId}/commands`);
      expect(g.status).toBe(201);
      expect(g.body.guild_id).toBe(guildId);
      expect((await t.req('GET', `/applications/${t.app.id}/guilds/${guildId}/commands/${g.body.id}`, { token: t.app.botToken, bot: true })).body.id).toBe(g.body.id);
      // A global command is not found under the guild route.
      expect((await t.req('GET', `/applications/${t.app.id}/guilds/${guildId}/commands/${created.body.id}`, { token: t.app.botToken, bot: true })).body.code).toBe(10063);
      expect((await t.req('DELETE', `/applications/${t.app.id}/guilds/${guildId}/commands/${g.body.id}`, { token: t.app.botToken, bot: true })).status).toBe(204);
      expect((await t.req('GET', `/applications/${t.app.id}/guilds/${guildId}/commands/${g.body.id}`, { token: t.app.botToken, bot: true })).status).toBe(404);
    });

    it('dm_permission is accepted (deprecated): false alone means guild context only', async () => {
      const r = await post({ name: 'nodm', description: 'x', dm_permission: false });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ dm_permission: false, contexts: [0] });
    });

    it('bulk overwrite keeps IDs by name, deletes the rest, and checks every item first', async () => {
      const before = await t.req('GET', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true });
      const roll = before.body.find((c: { name: string }) => c.name === 'roll');
      const bad = await t.req('PUT', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: [{ name: 'roll', description: 'ok' }, { name: 'Bad Name', description: 'x' }] });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe(50035);
      expect(bad.body.errors['1'].name._errors[0].code).toBe('APPLICATION_COMMAND_INVALID_NAME');
      expect((await t.req('GET', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true })).body).toHaveLength(before.body.length);
      const put = await t.req('PUT', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: [{ name: 'roll', description: 'kept' }, { name: 'new', description: 'fresh' }] });
      expect(put.status).toBe(200);
      expect(put.body.find((c: { name: string }) => c.name === 'roll').id).toBe(roll.id);
      expect(await count()).toBe(2);
    });

    it('refuses each field rule with 50035 at its path, writing nothing', async () => {
      const n = await count();
      const cases: [unknown, string[], string][] = [
        [{ name: 'UPPER', description: 'x' }, ['name'], 'APPLICATION_COMMAND_INVALID_NAME'],
        [{ name: 'ok' }, ['description'], 'BASE_TYPE_REQUIRED'],
        [{ name: 'ok', description: 'x'.repeat(101) }, ['description'], 'BASE_TYPE_BAD_LENGTH'],
        [{ type: 2, name: 'ctx', description: 'no' }, ['description'], 'APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION'],
        [{ type: 3, name: 'ctx', options: [{ type: 3, name: 'a', description: 'b' }] }, ['options'], 'APPLICATION_COMMAND_OPTIONS_NOT_ALLOWED'],
        [{ name: 'ok', description: 'x', options: [{ type: 3, name: 'a', description: 'b' }, { type: 3, name: 'b', description: 'c', required: true }] }, ['options', '1', 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID'],
        [{ name: 'ok', description: 'x', options: [{ type: 3, name: 'a', description: 'b', choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `v${i}` })) }] }, ['options', '0', 'choices'], 'BASE_TYPE_MAX_LENGTH'],
        [{ name: 'ok', description: 'x', options: [{ type: 3, name: 'a', description: 'b', autocomplete: true, choices: [{ name: 'a', value: 'a' }] }] }, ['options', '0', 'autocomplete'], 'APPLICATION_COMMAND_AUTOCOMPLETE_AND_CHOICES'],
        [{ name: 'ok', description: 'x', options: [{ type: 2, name: 'g', description: 'g', options: [{ type: 3, name: 's', description: 's' }] }] }, ['options', '0', 'options', '0', 'type'], 'APPLICATION_COMMAND_OPTION_INVALID_NESTING'],
        [{ name: 'ok', description: 'x', options: Array.from({ length: 26 }, (_, i) => ({ type: 3, name: `o${i}`, description: 'd' })) }, ['options'], 'BASE_TYPE_MAX_LENGTH'],
        [{ name: 'ok', description: 'x', integration_types: [2] }, ['integration_types', '0'], 'BASE_TYPE_CHOICES'],
        [{ name: 'ok', description: 'x', contexts: [0, 3] }, ['contexts', '1'], 'BASE_TYPE_CHOICES'],
        [{ name: 'ok', description: 'x', default_member_permissions: 'abc' }, ['default_member_permissions'], 'NUMBER_TYPE_COERCE'],
        [{ name: 'ok', description: 'x', name_localizations: { xx: 'a' } }, ['name_localizations', 'xx'], 'LOCALE_INVALID'],
        [{ name: 'ok', description: 'x', handler: 1 }, ['handler'], 'APPLICATION_COMMAND_HANDLER_NOT_ALLOWED'],
        [{ type: 4, name: 'launch', description: 'Launch' }, ['handler'], 'BASE_TYPE_REQUIRED'],
        [{ type: 5, name: 'x', description: 'x' }, ['type'], 'BASE_TYPE_CHOICES'],
      ];
      for (const [body, path, code] of cases) {
        const r = await post(body);
        expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(r.body.code).toBe(50035);
        let node = r.body.errors;
        for (const k of path) node = node?.[k];
        expect(node?._errors?.[0]?.code, `${path.join('.')} ${JSON.stringify(r.body.errors)}`).toBe(code);
      }
      expect(await count()).toBe(n);
      // An entry point only as a global command.
      const guildEntry = await post({ type: 4, name: 'launch', description: 'Launch', handler: 2 }, `/applications/${t.app.id}/guilds/${guildId}/commands`);
      expect(guildEntry.body.errors.type._errors[0].code).toBe('APPLICATION_COMMAND_ENTRY_POINT_GUILD');
    });

    it('16th user command is 30032; a second entry point is refused; nothing written', async () => {
      for (let i = 0; i < 15; i++) expect((await post({ type: 2, name: `User ${i}` })).status).toBe(201);
      const n = await count();
      const sixteenth = await post({ type: 2, name: 'User 15' });
      expect(sixteenth.status).toBe(400);
      expect(sixteenth.body.code).toBe(30032);
      // Message commands have their own 15.
      expect((await post({ type: 3, name: 'Quote' })).status).toBe(201);
      const entry = await post({ type: 4, name: 'launch', description: 'Launch the activity', handler: 2 });
      expect(entry.status).toBe(201);
      expect(entry.body.handler).toBe(2);
      const second = await post({ type: 4, name: 'start', description: 'Another entry point', handler: 1 });
      expect(second.status).toBe(400);
      expect(second.body.code).toBe(50035);
      expect(second.body.errors.type._errors[0].code).toBe('APPLICATION_COMMAND_ENTRY_POINT_EXISTS');
      // Bulk overwrite with 16 user commands is 30032 too, and changes nothing.
      const bulk = await t.req('PUT', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: Array.from({ length: 16 }, (_, i) => ({ type: 2, name: `U${i}` })) });
      expect(bulk.body.code).toBe(30032);
      expect(await count()).toBe(n + 2);
    });

    it('only the application itself may manage its commands', async () => {
      const other = await t.server.createApplication({ name: 'Other' });
      const r = await t.req('GET', `/applications/${t.app.id}/commands`, { token: other.botToken, bot: true });
      expect(r.status).toBe(403);
      const guest = await t.guest('Nobody');
      expect((await t.req('POST', `/applications/${t.app.id}/commands`, { token: guest.token, body: { name: 'x', description: 'y' } })).status).toBe(403);
    });
  });
}
