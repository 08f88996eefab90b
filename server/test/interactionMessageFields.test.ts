import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawGateway, cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';

/**
 * Issue 13, fields of the messages interactions make: the deprecated `interaction`
 * (MessageInteraction: id, type, name with the sub-command path, user, member) beside
 * `interaction_metadata`; `triggering_interaction_metadata` on a modal submit's response (the
 * command that opened the modal); mentions found again when a response's content is edited
 * (narrowed by the edit's allowed_mentions), on the answer, MESSAGE_UPDATE and channel history;
 * `target_user` / `target_message_id` of context-menu commands.
 * SQLite and PostgreSQL.
 */
let t: TestServer;
let bot: RawGateway;
let userGw: RawGateway;
let channelId: string;
let user: { token: string; userId: string };
let friend: { token: string; userId: string };
let cmd: string;

const json = async (res: Response) => ({ status: res.status, body: res.status === 204 ? undefined : await res.json() });
const callback = async (i: any, body: unknown) => json(await fetch(`${t.api}/interactions/${i.id}/${i.token}/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
const editOriginal = async (i: any, body: unknown) => json(await fetch(`${t.api}/webhooks/${t.app.id}/${i.token}/messages/@original`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));

async function invoke(body: Record<string, unknown>): Promise<any> {
  const r = await t.req('POST', '/interactions', { token: user.token, body: { channel_id: channelId, ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (await bot.next((f) => f.t === 'INTERACTION_CREATE' && f.d.id === r.body.id)).d;
}
const history = async () => (await t.req('GET', `/channels/${channelId}/messages?limit=20`, { token: user.token })).body as any[];

for (const { name: dbName, config } of databaseConfigs()) {
  describe(`interaction message fields (${dbName})`, () => {
    beforeAll(async () => {
      t = await startTestServer({ database: config(), rateLimits: false });
      const g = await t.guest('Player');
      user = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
      const f = await t.guest('Friend');
      friend = { token: await t.server.store.tokens.issue(f.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: f.userId };
      const services = guildServicesFor(t.server.store, undefined as never);
      const guildId = (await services.guilds.createGuild(user.userId, { name: 'Fields' })).id;
      await services.members.join(guildId, friend.userId);
      channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
      await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);
      cmd = (await t.req('POST', `/applications/${t.app.id}/commands`, {
        token: t.app.botToken, bot: true,
        body: { name: 'team', description: 'Team', options: [{ type: 2, name: 'member', description: 'Members', options: [{ type: 1, name: 'add', description: 'Add', options: [{ type: 3, name: 'who', description: 'Who' }] }] }] },
      })).body.id;
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

    it('messages made by interactions carry the deprecated `interaction` (name with the sub-command path)', async () => {
      const i = await invoke({ type: 2, data: { id: cmd, options: [{ type: 2, name: 'member', options: [{ type: 1, name: 'add', options: [{ type: 3, name: 'who', value: 'ada' }] }] }] } });
      expect((await callback(i, { type: 4, data: { content: 'added ada' } })).status).toBe(204);
      const ev = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'added ada');
      const expected = { id: i.id, type: 2, name: 'team member add', user: { id: user.userId } };
      expect(ev.d.interaction).toMatchObject(expected);
      expect(ev.d.interaction.member).toBeDefined();
      expect(ev.d.interaction.member).not.toHaveProperty('user');
      expect(ev.d.interaction_metadata).toMatchObject({ id: i.id, type: 2 });
      const m = (await history()).find((x) => x.id === ev.d.id);
      expect(m.interaction).toMatchObject(expected);
      // A follow-up carries it too.
      const fu = await json(await fetch(`${t.api}/webhooks/${t.app.id}/${i.token}?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'and one more' }) }));
      expect(fu.body.interaction).toMatchObject(expected);
    });

    it('a modal submit response carries triggering_interaction_metadata of the command that opened the modal', async () => {
      const opener = await invoke({ type: 2, data: { id: cmd, options: [{ type: 2, name: 'member', options: [{ type: 1, name: 'add' }] }] } });
      const modal = { custom_id: 'add-form', title: 'Add', components: [{ type: 18, label: 'Name', component: { type: 4, custom_id: 'name', style: 1 } }] };
      expect((await callback(opener, { type: 9, data: modal })).status).toBe(204);
      const submit = await invoke({ type: 5, data: { id: opener.id, custom_id: 'add-form', values: { name: 'grace' } } });
      expect(submit.type).toBe(5);
      expect((await callback(submit, { type: 4, data: { content: 'added grace' } })).status).toBe(204);
      const ev = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'added grace');
      expect(ev.d.interaction_metadata).toMatchObject({ id: submit.id, type: 5, user: { id: user.userId }, triggering_interaction_metadata: { id: opener.id, type: 2, user: { id: user.userId } } });
      expect(ev.d.interaction_metadata.triggering_interaction_metadata).not.toHaveProperty('triggering_interaction_metadata');
      expect(ev.d.interaction).toMatchObject({ id: submit.id, type: 5, name: 'add-form' });
      const m = (await history()).find((x) => x.id === ev.d.id);
      expect(m.interaction_metadata.triggering_interaction_metadata.id).toBe(opener.id);
    });

    it('a context-menu command\'s messages name its target: target_user (USER) and target_message_id (MESSAGE)', async () => {
      const userCmd = (await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { name: 'Wave', type: 2 } })).body.id;
      const msgCmd = (await t.req('POST', `/applications/${t.app.id}/commands`, { token: t.app.botToken, bot: true, body: { name: 'Quote', type: 3 } })).body.id;
      const onUser = await invoke({ type: 2, data: { id: userCmd, target_id: friend.userId } });
      expect((await callback(onUser, { type: 4, data: { content: 'waved' } })).status).toBe(204);
      const waved = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'waved');
      expect(waved.d.interaction_metadata).toMatchObject({ id: onUser.id, target_user: { id: friend.userId } });
      expect(waved.d.interaction_metadata).not.toHaveProperty('target_message_id');
      const onMsg = await invoke({ type: 2, data: { id: msgCmd, target_id: waved.d.id } });
      expect((await callback(onMsg, { type: 4, data: { content: 'quoted' } })).status).toBe(204);
      const quoted = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'quoted');
      expect(quoted.d.interaction_metadata).toMatchObject({ id: onMsg.id, target_message_id: waved.d.id });
      expect((await history()).find((x) => x.id === quoted.d.id).interaction_metadata.target_message_id).toBe(waved.d.id);
    });

    it('editing a response finds its mentions again (allowed_mentions narrows them)', async () => {
      const i = await invoke({ type: 2, data: { id: cmd, options: [{ type: 2, name: 'member', options: [{ type: 1, name: 'add' }] }] } });
      expect((await callback(i, { type: 4, data: { content: 'nobody yet' } })).status).toBe(204);
      const created = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'nobody yet');
      expect(created.d.mentions).toEqual([]);
      const e1 = await editOriginal(i, { content: `welcome <@${friend.userId}>` });
      expect(e1.status, JSON.stringify(e1.body)).toBe(200);
      expect(e1.body.mentions.map((u: any) => u.id)).toEqual([friend.userId]);
      const upd = await userGw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === created.d.id && f.d.content.startsWith('welcome'));
      expect(upd.d.mentions.map((u: any) => u.id)).toEqual([friend.userId]);
      expect((await history()).find((x) => x.id === created.d.id).mentions.map((u: any) => u.id)).toEqual([friend.userId]);
      // allowed_mentions with nothing allowed: no one is mentioned.
      const e2 = await editOriginal(i, { content: `still <@${friend.userId}>`, allowed_mentions: { parse: [] } });
      expect(e2.body.mentions).toEqual([]);
      expect((await history()).find((x) => x.id === created.d.id).mentions).toEqual([]);
      // An edit without content keeps the mentions it has.
      const e3 = await editOriginal(i, { content: `again <@${friend.userId}>` });
      expect(e3.body.mentions.map((u: any) => u.id)).toEqual([friend.userId]);
      const e4 = await editOriginal(i, { embeds: [{ title: 'x' }] });
      expect(e4.body.mentions.map((u: any) => u.id)).toEqual([friend.userId]);
    });
  });
}
