import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';

/**
 * Issue 13, the rules and limits of responding: every modal component rule of the spec (refused
 * with 50035 at its path, the interaction left unanswered), more than 5 follow-ups of a
 * user-installed app, forced ephemerality without error, the response deadline and the token's
 * lifetime (both shortened through the server options), the entry point launching by itself.
 * SQLite and PostgreSQL.
 */
let t: TestServer;
let bot: RawGateway;
let userGw: RawGateway;
let guildId: string;
let channelId: string;
let user: { token: string; userId: string };
let cmd: string;

/** Invokes `command` as the user; resolves with the interaction the bot receives. */
async function invoke(gw: RawGateway, command: string, extra: Record<string, unknown> = {}): Promise<any> {
  const r = await t.req('POST', '/interactions', { token: user.token, body: { type: 2, channel_id: channelId, data: { id: command }, ...extra } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (await gw.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === r.body.id)).d;
}
const callback = async (i: any, body: unknown) => {
  const res = await fetch(`${t.api}/interactions/${i.id}/${i.token}/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};
const at = (tree: any, path: (string | number)[]) => path.reduce((n, k) => n?.[k], tree)?._errors?.[0]?.code;

const label = (component: Record<string, unknown>) => ({ type: 18, label: 'Field', component });
const modal = (...components: unknown[]) => ({ type: 9, data: { custom_id: 'm', title: 'Form', components } });
const text = (extra: Record<string, unknown> = {}) => ({ type: 4, custom_id: 't', style: 1, ...extra });
const options = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `O${i}`, value: `o${i}` }));

for (const { name: dbName, config } of databaseConfigs()) {
  describe(`interaction rules and limits (${dbName})`, () => {
    beforeAll(async () => {
      // Rate limits off: the cases below invoke faster than a person would.
      t = await startTestServer({ database: config(), rateLimits: false, interactions: { responseDeadlineMs: 1500, tokenLifetimeMs: 6000 } });
      const g = await t.guest('Player');
      user = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
      const services = guildServicesFor(t.server.store, undefined as never);
      guildId = (await services.guilds.createGuild(user.userId, { name: 'Limits' })).id;
      channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
      await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
      cmd = (await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { name: 'go', description: 'Go' } })).body.id;
      bot = await RawGateway.open(t.server);
      await bot.identify(t.app.botToken);
      userGw = await RawGateway.open(t.server);
      await userGw.identify(user.token, MessageIntent.Guilds | MessageIntent.GuildMessages);
    });
    afterAll(async () => {
      bot?.terminate();
      userGw?.terminate();
      await t?.close();
      await dropTestSchemas();
      cleanupTempDirs();
    });

    describe('the message rules of Create Message, on every interaction path', () => {
      const field = (i: number) => ({ name: `f${i}`, value: 'v' });
      const bad: [string, unknown, (string | number)[], string][] = [
        ['26 embed fields', [{ fields: Array.from({ length: 26 }, (_, i) => field(i)) }], ['embeds', 0, 'fields'], 'BASE_TYPE_BAD_LENGTH'],
        ['a 257-character title', [{ title: 't'.repeat(257) }], ['embeds', 0, 'title'], 'BASE_TYPE_BAD_LENGTH'],
        ['6,001 characters in all', [{ description: 'd'.repeat(4096) }, { description: 'd'.repeat(1905) }], ['embeds'], 'MAX_EMBED_SIZE_EXCEEDED'],
        ['an embed that is a string', ['not an embed'], ['embeds', 0], 'MODEL_TYPE_CONVERT'],
        ['fields that are a string', [{ fields: 'x' }], ['embeds', 0, 'fields'], 'BASE_TYPE_ARRAY'],
      ];
      const codeAt = (r: { body: any }, path: (string | number)[]) => at(r.body.errors, path) ?? JSON.stringify(r.body.errors);

      for (const [name, embeds, path, code] of bad) {
        it(`refuses ${name} in a response, a follow-up and an @original edit`, async () => {
          const i = await invoke(bot, cmd);
          const response = await callback(i, { type: 4, data: { content: 'x', embeds } });
          expect([response.status, response.body.code]).toEqual([400, 50035]);
          expect(codeAt(response, ['data', ...path])).toBe(code);
          expect((await t.server.interactions.repo.interaction(i.id))!.state).toBe('pending');
          expect((await callback(i, { type: 4, data: { content: 'fine' } })).status).toBe(204);
          const hook = `${t.api}/webhooks/${t.app.id}/${i.token}`;
          const send = async (url: string, method: string) => {
            const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'y', embeds }) });
            return { status: res.status, body: JSON.parse(await res.text()) };
          };
          const followUp = await send(hook, 'POST');
          expect([followUp.status, codeAt(followUp, path)]).toEqual([400, code]);
          const edit = await send(`${hook}/messages/@original`, 'PATCH');
          expect([edit.status, codeAt(edit, path)]).toEqual([400, code]);
          expect((await (await fetch(`${hook}/messages/@original`)).json() as { content: string }).content).toBe('fine');
        });
      }

      it('data nested 5,000 deep is refused, not a 500', async () => {
        const i = await invoke(bot, cmd);
        // Written out as text: JSON.stringify itself gives up long before 5,000 levels.
        const deep = `${'{"a":'.repeat(5000)}"end"${'}'.repeat(5000)}`;
        const raw = async (data: string) => {
          const res = await fetch(`${t.api}/interactions/${i.id}/${i.token}/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"type":4,"data":${data}}` });
          return { status: res.status, body: JSON.parse(await res.text()) };
        };
        const components = await raw(`{"content":"x","components":[${deep}]}`);
        expect([components.status, components.body.code]).toEqual([400, 50035]);
        const embeds = await raw(`{"content":"x","embeds":[{"title":"t","fields":[${deep}]}]}`);
        expect([embeds.status, embeds.body.code]).toEqual([400, 50035]);
        expect((await t.server.interactions.repo.interaction(i.id))!.state).toBe('pending');
      });
    });

    describe('modal component rules', () => {
      const cases: [string, unknown, (string | number)[], string][] = [
        ['label on a Text Input inside a Label', modal(label(text({ label: 'no' }))), ['data', 'components', 0, 'component', 'label'], 'COMPONENT_LABEL_NOT_ALLOWED'],
        ['disabled on a String Select in a modal', modal(label({ type: 3, custom_id: 's', options: options(2), disabled: false })), ['data', 'components', 0, 'component', 'disabled'], 'COMPONENT_DISABLED_NOT_ALLOWED'],
        ['Checkbox Group min_values above max_values', modal(label({ type: 22, custom_id: 'c', options: options(3), min_values: 3, max_values: 2 })), ['data', 'components', 0, 'component', 'min_values'], 'BASE_TYPE_BAD_LENGTH'],
        ['Checkbox Group max_values over 10', modal(label({ type: 22, custom_id: 'c', options: options(3), max_values: 11 })), ['data', 'components', 0, 'component', 'max_values'], 'NUMBER_TYPE_MAX'],
        ['Radio Group with one option', modal(label({ type: 21, custom_id: 'r', options: options(1) })), ['data', 'components', 0, 'component', 'options'], 'BASE_TYPE_BAD_LENGTH'],
        ['Radio Group required not a boolean', modal(label({ type: 21, custom_id: 'r', options: options(2), required: 'yes' })), ['data', 'components', 0, 'component', 'required'], 'BASE_TYPE_BOOLEAN'],
        ['File Upload max_values over 10', modal(label({ type: 19, custom_id: 'f', max_values: 11 })), ['data', 'components', 0, 'component', 'max_values'], 'NUMBER_TYPE_MAX'],
        ['File Upload min_values over 10', modal(label({ type: 19, custom_id: 'f', min_values: 11 })), ['data', 'components', 0, 'component', 'min_values'], 'NUMBER_TYPE_MAX'],
        ['File Upload bad file types', modal(label({ type: 19, custom_id: 'f', file_types: ['not a type'] })), ['data', 'components', 0, 'component', 'file_types'], 'BASE_TYPE_BAD_LENGTH'],
        ['a select outside a Label', modal({ type: 3, custom_id: 's', options: options(2) }), ['data', 'components', 0, 'type'], 'COMPONENT_TYPE_INVALID'],
        ['an action row with two Text Inputs', modal({ type: 1, components: [text({ label: 'a' }), text({ custom_id: 'u', label: 'b' })] }), ['data', 'components', 0, 'components'], 'COMPONENT_TYPE_INVALID'],
        ['a deprecated row without the Text Input label', modal({ type: 1, components: [text()] }), ['data', 'components', 0, 'components', 0, 'label'], 'BASE_TYPE_REQUIRED'],
        ['six components', modal(...Array.from({ length: 6 }, (_, i) => label(text({ custom_id: `t${i}` })))), ['data', 'components'], 'BASE_TYPE_BAD_LENGTH'],
        ['a title over 45 characters', { type: 9, data: { custom_id: 'm', title: 'x'.repeat(46), components: [label(text())] } }, ['data', 'title'], 'BASE_TYPE_BAD_LENGTH'],
        ['duplicate custom_id', modal(label(text()), label(text())), ['data', 'components', 1, 'component', 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED'],
      ];
      for (const [name, body, path, code] of cases) {
        it(`refuses ${name} (50035 ${path.join('.')}), leaving the interaction unanswered`, async () => {
          const i = await invoke(bot, cmd);
          const r = await callback(i, body);
          expect(r.status).toBe(400);
          expect(r.body.code).toBe(50035);
          expect(at(r.body.errors, path), JSON.stringify(r.body.errors)).toBe(code);
          expect((await t.server.interactions.repo.interaction(i.id))!.state).toBe('pending');
        });
      }

      it('accepts the allowed shapes; String Select and Radio Group are required by default, Checkbox Group counts hold', async () => {
        const i = await invoke(bot, cmd, { nonce: 'm-ok' });
        const r = await callback(i, modal(
          label({ type: 3, custom_id: 's', options: options(3) }),
          label({ type: 21, custom_id: 'r', options: options(2) }),
          label({ type: 22, custom_id: 'c', options: options(4), min_values: 1, max_values: 2 }),
          label({ type: 19, custom_id: 'f', min_values: 0, max_values: 10, required: false, file_types: ['image/png', '.txt'] }),
          { type: 1, components: [text({ label: 'Old style', custom_id: 'old', required: false })] },
        ));
        expect(r.status).toBe(204);
        const submit = (values: Record<string, unknown>) => t.req('POST', '/interactions', { token: user.token, body: { type: 5, channel_id: channelId, data: { id: i.id, custom_id: 'm', values } } });
        // The String Select and the Radio Group are required unless told otherwise.
        const noSelect = await submit({ r: ['o0'], c: ['o1'] });
        expect(at(noSelect.body.errors, ['data', 'components', 's'])).toBe('BASE_TYPE_BAD_LENGTH');
        const noRadio = await submit({ s: ['o0'], c: ['o1'] });
        expect(at(noRadio.body.errors, ['data', 'components', 'r'])).toBe('BASE_TYPE_BAD_LENGTH');
        const tooMany = await submit({ s: ['o0'], r: ['o0'], c: ['o0', 'o1', 'o2'] });
        expect(at(tooMany.body.errors, ['data', 'components', 'c'])).toBe('BASE_TYPE_BAD_LENGTH');
        const notOption = await submit({ s: ['zz'], r: ['o0'], c: ['o1'] });
        expect(at(notOption.body.errors, ['data', 'components', 's'])).toBe('BASE_TYPE_CHOICES');
        const ok = await submit({ s: ['o2'], r: ['o1'], c: ['o0', 'o3'], old: 'hi' });
        expect(ok.status).toBe(200);
        const got = (await bot.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === ok.body.id)).d;
        expect(got.type).toBe(5);
        expect(got.data.components).toEqual([
          { type: 18, component: { type: 3, custom_id: 's', values: ['o2'] } },
          { type: 18, component: { type: 21, custom_id: 'r', value: 'o1' } },
          { type: 18, component: { type: 22, custom_id: 'c', values: ['o0', 'o3'] } },
          { type: 18, component: { type: 19, custom_id: 'f', values: [] } },
          { type: 1, components: [{ type: 4, custom_id: 'old', value: 'hi' }] },
        ]);
        // A modal cannot answer a modal submit.
        expect((await callback(got, modal(label(text())))).body.errors.type._errors[0].code).toBe('INTERACTION_RESPONSE_TYPE_INVALID');
      });

      it('accepts a Text Display, a Checkbox and the user, role, mentionable and channel selects; their values reach the bot', async () => {
        const i = await invoke(bot, cmd, { nonce: 'm-kinds' });
        const r = await callback(i, modal(
          { type: 10, content: 'Read this first' },
          label({ type: 23, custom_id: 'agree' }),
          label({ type: 5, custom_id: 'who' }),
          label({ type: 8, custom_id: 'where', required: false }),
          label({ type: 6, custom_id: 'role', required: false }),
        ));
        expect(r.status).toBe(204);
        const submit = await t.req('POST', '/interactions', { token: user.token, body: { type: 5, channel_id: channelId, data: { id: i.id, custom_id: 'm', values: { agree: true, who: [user.userId], where: [channelId], role: [] } } } });
        expect(submit.status).toBe(200);
        const got = (await bot.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === submit.body.id)).d;
        const inner = got.data.components.filter((c: { type: number }) => c.type === 18).map((c: { component: unknown }) => c.component);
        expect(inner).toEqual([
          expect.objectContaining({ type: 23, custom_id: 'agree', value: true }),
          expect.objectContaining({ type: 5, custom_id: 'who', values: [user.userId] }),
          expect.objectContaining({ type: 8, custom_id: 'where', values: [channelId] }),
          expect.objectContaining({ type: 6, custom_id: 'role', values: [] }),
        ]);
        const mentionable = await invoke(bot, cmd, { nonce: 'm-mention' });
        expect((await callback(mentionable, modal(label({ type: 7, custom_id: 'anyone' })))).status).toBe(204);
      });
    });

    describe('deadlines and the token', () => {
      it('no answer within the deadline: INTERACTION_FAILURE to the user, and a late callback is 10062', async () => {
        const i = await invoke(bot, cmd, { nonce: 'late' });
        await userGw.next((f) => f.t === 'INTERACTION_FAILURE' && f.d.nonce === 'late', 10_000);
        expect((await t.server.interactions.repo.interaction(i.id))!.state).toBe('failed');
        const r = await callback(i, { type: 4, data: { content: 'late' } });
        expect(r.status).toBe(404);
        expect(r.body.code).toBe(10062);
      });

      it('mentions in a response name members, narrowed by allowed_mentions', async () => {
        const i = await invoke(bot, cmd);
        expect((await callback(i, { type: 4, data: { content: `well played <@${user.userId}> and <@123>` } })).status).toBe(204);
        const m = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === `well played <@${user.userId}> and <@123>`);
        expect(m.d.mentions.map((u: { id: string }) => u.id)).toEqual([user.userId]);
        const quiet = await invoke(bot, cmd);
        await callback(quiet, { type: 4, data: { content: `quietly <@${user.userId}>`, allowed_mentions: { parse: [] } } });
        expect((await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === `quietly <@${user.userId}>`)).d.mentions).toEqual([]);
      });

      it('a pending interaction whose node died is failed by any node\'s sweep', async () => {
        const i = await invoke(bot, cmd, { nonce: 'orphan' });
        // As if delivered by a node that died: made long ago, its timer gone with it.
        await t.server.store.database.db.updateTable('interactions').set({ created_at: Date.now() - 60_000 }).where('id', '=', i.id).execute();
        expect(await t.server.interactions.sweep()).toBeGreaterThanOrEqual(1);
        await userGw.next((f) => f.t === 'INTERACTION_FAILURE' && f.d.nonce === 'orphan');
        expect((await t.server.interactions.repo.interaction(i.id))!.state).toBe('failed');
      });

      it('the token answers follow-ups and edits until it expires, then 10015', async () => {
        const i = await invoke(bot, cmd);
        expect((await callback(i, { type: 4, data: { content: 'first' } })).status).toBe(204);
        const hook = `${t.api}/webhooks/${t.app.id}/${i.token}`;
        const get = await fetch(`${hook}/messages/@original`);
        expect((await get.json()).content).toBe('first');
        // A poll cannot be added to a response that was not deferred.
        const poll = await fetch(`${hook}/messages/@original`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ poll: { question: { text: 'Q' }, answers: [{ poll_media: { text: 'A' } }] } }) });
        expect((await poll.json()).errors.poll._errors[0].code).toBe('POLL_EDIT_NOT_ALLOWED');
        const del = await fetch(`${hook}/messages/@original`, { method: 'DELETE' });
        expect(del.status).toBe(204);
        await new Promise((r) => setTimeout(r, 6500));
        const late = await fetch(`${hook}?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'after 15 minutes' }) });
        expect(late.status).toBe(404);
        expect((await late.json()).code).toBe(10015);
      }, 20_000);
    });

    describe('user-installed applications', () => {
      let other: { id: string; botToken: string };
      let otherBot: RawGateway;
      let userCmd: string;

      beforeAll(async () => {
        // Installed by the user (applications.commands), not in the guild.
        other = await t.server.createApplication({ name: 'Pocket App' });
        await t.server.store.oauth.grant(t.server.store.database.db, other.id, user.userId, ['identify', 'applications.commands']);
        userCmd = (await t.req('POST', `/applications/${other.id}/commands`, { token: other.botToken, bot: true, body: { name: 'pocket', description: 'From my pocket', integration_types: [1], contexts: [0, 1, 2] } })).body.id;
        otherBot = await RawGateway.open(t.server);
        await otherBot.identify(other.botToken);
      });
      afterAll(() => otherBot?.terminate());

      it('the interaction names the user as owner (string values) and the follow-ups stop at 5 (nothing written past it)', async () => {
        const i = await invoke(otherBot, userCmd);
        expect(i.authorizing_integration_owners).toEqual({ 1: user.userId });
        expect(typeof i.authorizing_integration_owners['1']).toBe('string');
        expect((await callback(i, { type: 4, data: { content: 'hello' } })).status).toBe(204);
        const follow = (n: number) => fetch(`${t.api}/webhooks/${other.id}/${i.token}?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: `follow-up ${n}` }) });
        for (let n = 1; n <= 5; n++) expect((await follow(n)).status).toBe(200);
        const sixth = await follow(6);
        expect(sixth.status).toBe(400);
        expect((await sixth.json()).message).toMatch(/follow-up/);
        const rows = await t.server.store.database.db.selectFrom('interaction_messages').selectAll().where('interaction_id', '=', i.id).execute();
        expect(rows).toHaveLength(6);
      });

      it('forced ephemerality: without USE_EXTERNAL_APPS the responses are ephemeral, without error', async () => {
        // The user must not own the guild (an owner holds every permission): hand it to another member.
        const botUser = (await t.server.store.applications.get(t.app.id))!.bot_user_id;
        await t.server.store.database.db.updateTable('guilds').set({ owner_id: botUser }).where('id', '=', guildId).execute();
        await t.server.store.database.db.updateTable('guild_roles').set({ permissions: (BigInt((await t.server.store.guilds.roles(guildId)).find((r) => r.id === guildId)!.permissions) & ~Permission.UseExternalApps).toString() }).where('id', '=', guildId).execute();
        const i = await invoke(otherBot, userCmd);
        const r = await callback(i, { type: 4, data: { content: 'public?' } });
        expect(r.status).toBe(204);
        const m = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'public?');
        expect(m.d.flags & 64).toBe(64);
        // Not in the channel's history: only the user saw it.
        const history = await t.req('GET', `/channels/${channelId}/messages`, { token: user.token });
        expect(history.body.some((x: { content: string }) => x.content === 'public?')).toBe(false);
      });
    });

    describe('entry point', () => {
      it('an entry point whose handler is the platform launches the activity: recorded as LAUNCH_ACTIVITY', async () => {
        const e = await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { type: 4, name: 'launch', description: 'Launch', handler: 2 } });
        const r = await t.req('POST', '/interactions', { token: user.token, body: { type: 2, channel_id: channelId, data: { id: e.body.id }, nonce: 'launch' } });
        expect(r.status).toBe(200);
        await userGw.next((f) => f.t === 'INTERACTION_LAUNCH_ACTIVITY' && f.d.nonce === 'launch');
        expect(await t.server.interactions.repo.interaction(r.body.id)).toMatchObject({ state: 'responded', response_type: 12 });
      });
    });
  });
}
