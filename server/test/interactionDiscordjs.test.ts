import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationCommandType, ButtonStyle, Client, Events, GatewayIntentBits, type Interaction } from 'discord.js';
import { RawGateway, cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';
import { MessageIntent } from '../src/messages/messageGateway.ts';

/**
 * Issue 13 with discord.js v14, unmodified: the bot registers a slash, a user and a message
 * command; a user invokes them (POST /interactions, as the web app does) and the bot answers:
 * defer then edit with a poll, two follow-ups, a modal whose submitted values it reads, a
 * button by custom_id that updates its message, context-menu targets, LAUNCH_ACTIVITY accepted
 * for a command and refused for autocomplete. Every step reaches the user's own Gateway session.
 */
let t: TestServer;
let bot: Client;
let userGw: RawGateway;
let guildId: string;
let channelId: string;
let user: { token: string; userId: string };
const commands: Record<string, string> = {};
const seen: Interaction[] = [];
const handlers: ((i: Interaction) => Promise<void> | void)[] = [];

function login(client: Client, token: string): Promise<void> {
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  return client.login(token).then(() => ready);
}

async function invoke(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  return t.req('POST', '/interactions', { token: user.token, body: { channel_id: channelId, guild_id: guildId, ...body } });
}

/** Runs `handler` for the next interaction the bot receives, resolving with it. */
function nextInteraction(handler: (i: Interaction) => Promise<void> | void): Promise<Interaction> {
  return new Promise((resolve, reject) => {
    handlers.push(async (i) => {
      try {
        await handler(i);
        resolve(i);
      } catch (e) {
        reject(e);
      }
    });
  });
}

beforeAll(async () => {
  // Budgets off: the cases invoke faster than a person would (POST /interactions has a per-user budget).
  t = await startTestServer({ rateLimits: false });
  const g = await t.guest('Player');
  user = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
  const services = guildServicesFor(t.server.store, undefined as never);
  guildId = (await services.guilds.createGuild(user.userId, { name: 'Interactions' })).id;
  channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
  await services.installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory);

  userGw = await RawGateway.open(t.server);
  await userGw.identify(user.token, MessageIntent.Guilds | MessageIntent.GuildMessages);

  bot = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: `${t.server.url}/api` } });
  bot.on(Events.InteractionCreate, (i) => {
    seen.push(i);
    const h = handlers.shift();
    void h?.(i);
  });
  await login(bot, t.app.botToken);
});
afterAll(async () => {
  await bot?.destroy();
  userGw?.terminate();
  await t.close();
  cleanupTempDirs();
});

describe('discord.js bot with slash, user and message commands', () => {
  it('registers a slash, a user and a message command (global) and a guild command', async () => {
    const set = await bot.application!.commands.set([
      { name: 'poll', description: 'Ask the channel', options: [{ type: 3, name: 'question', description: 'What to ask', required: true }] },
      { name: 'feedback', description: 'Open a form' },
      { name: 'buttons', description: 'Show a button' },
      { name: 'launch', description: 'Launch an activity' },
      { name: 'pick', description: 'Autocomplete', options: [{ type: 3, name: 'fruit', description: 'Fruit', autocomplete: true }] },
      { name: 'High Five', type: ApplicationCommandType.User },
      { name: 'Quote', type: ApplicationCommandType.Message },
    ]);
    expect(set.size).toBe(7);
    for (const c of set.values()) commands[c.name] = c.id;
    const guildCmd = await bot.guilds.cache.get(guildId)!.commands.create({ name: 'local', description: 'Guild only' });
    expect(guildCmd.guildId).toBe(guildId);
    const fetched = await bot.application!.commands.fetch();
    expect(fetched.map((c) => c.name).sort()).toEqual(['High Five', 'Quote', 'buttons', 'feedback', 'launch', 'pick', 'poll']);
    // The web app's picker lists them for the user.
    const index = await t.req('GET', `/channels/${channelId}/application-command-index`, { token: user.token });
    expect(index.body.application_commands.map((c: { name: string }) => c.name)).toContain('local');
  });

  it('slash command: the bot defers, edits with a poll, and sends two follow-ups; the user sees each', async () => {
    // The user owns something of this app: the interaction carries it (commerce service).
    const sku = await t.server.commerce.createSku(t.app.id, { name: 'Gold Pass', type: 'durable', price: 499 });
    const owned = await t.server.commerce.createTestEntitlement(t.app.id, { skuId: sku.id, ownerId: user.userId, ownerType: 2 });
    const handled = nextInteraction(async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      expect([...i.entitlements.keys()]).toEqual([owned.id]);
      expect(i.entitlements.first()!.skuId).toBe(sku.id);
      expect(i.options.getString('question')).toBe('Pizza or pasta?');
      expect(i.guildId).toBe(guildId);
      expect(i.user.id).toBe(user.userId);
      expect(i.appPermissions?.has('SendMessages')).toBe(true);
      await i.deferReply();
      await i.editReply({ poll: { question: { text: 'Pizza or pasta?' }, answers: [{ text: 'Pizza' }, { text: 'Pasta' }], duration: 1, allowMultiselect: false } });
      await i.followUp('first follow-up');
      await i.followUp({ content: 'second follow-up' });
    });
    const r = await invoke({ type: 2, data: { id: commands.poll, name: 'poll', type: 1, options: [{ type: 3, name: 'question', value: 'Pizza or pasta?' }] }, nonce: 'n-poll' });
    expect(r.status).toBe(200);
    const i = await handled;
    const raw = (i as unknown as { token: string }).token;
    expect(raw).toBeTruthy();
    expect((await userGw.next((f) => f.t === 'INTERACTION_SUCCESS' && f.d.nonce === 'n-poll')).d.id).toBe(r.body.id);
    const loading = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.interaction_metadata?.id === r.body.id && (f.d.flags & 128) !== 0);
    expect(loading.d).toMatchObject({ type: 20, author: { id: bot.user!.id }, webhook_id: t.app.id });
    expect(loading.d.interaction_metadata.user.id).toBe(user.userId);
    expect(loading.d.interaction_metadata).not.toHaveProperty('user_id');
    const edited = await userGw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === loading.d.id);
    expect(edited.d.poll.question.text).toBe('Pizza or pasta?');
    expect(edited.d.poll.answers.map((a: { poll_media: { text: string } }) => a.poll_media.text)).toEqual(['Pizza', 'Pasta']);
    expect(edited.d.flags & 128).toBe(0);
    const followups = await Promise.all(['first follow-up', 'second follow-up'].map((c) => userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === c)));
    for (const f of followups) expect(f.d.interaction_metadata).toMatchObject({ id: r.body.id, original_response_message_id: loading.d.id });
    // A second response to the same interaction is 40060.
    const again = await fetch(`${t.api}/interactions/${r.body.id}/${raw}/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 4, data: { content: 'late' } }) });
    expect((await again.json()).code).toBe(40060);
  });

  it('modal: showModal with a Label and a deprecated row; the bot reads the submitted values', async () => {
    const opened = nextInteraction(async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      await i.showModal({
        toJSON: () => ({
          custom_id: 'feedback-form',
          title: 'Feedback',
          components: [
            { type: 18, label: 'Your name', component: { type: 4, custom_id: 'name', style: 1, max_length: 40 } },
            { type: 18, label: 'Rating', component: { type: 3, custom_id: 'rating', options: [{ label: 'Good', value: 'good' }, { label: 'Bad', value: 'bad' }] } },
            { type: 1, components: [{ type: 4, custom_id: 'notes', style: 2, label: 'Notes', required: false }] },
          ],
        }),
      } as never);
    });
    const r = await invoke({ type: 2, data: { id: commands.feedback, name: 'feedback', type: 1 }, nonce: 'n-modal' });
    await opened;
    const modal = await userGw.next((f) => f.t === 'INTERACTION_MODAL_CREATE' && f.d.nonce === 'n-modal');
    expect(modal.d).toMatchObject({ id: r.body.id, custom_id: 'feedback-form', title: 'Feedback' });
    // A missing required value is refused before the bot hears anything.
    const missing = await invoke({ type: 5, data: { id: r.body.id, custom_id: 'feedback-form', values: { rating: ['good'] } } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.data.components.name._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const submitted = nextInteraction(async (i) => {
      if (!i.isModalSubmit()) throw new Error('expected a modal submit');
      expect(i.customId).toBe('feedback-form');
      expect(i.fields.getTextInputValue('name')).toBe('Ada');
      expect(i.fields.getStringSelectValues('rating')).toEqual(['good']);
      expect(i.fields.getTextInputValue('notes')).toBe('fine');
      await i.reply({ content: `Thanks ${i.fields.getTextInputValue('name')}`, flags: 64 });
    });
    const s = await invoke({ type: 5, data: { id: r.body.id, custom_id: 'feedback-form', values: { name: 'Ada', rating: ['good'], notes: 'fine' } } });
    expect(s.status).toBe(200);
    await submitted;
    const eph = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'Thanks Ada');
    expect(eph.d.flags & 64).toBe(64);
  });

  it('modal File Upload: the user\'s files arrive as attachments the bot reads with getUploadedFiles', async () => {
    const opened = nextInteraction(async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      await i.showModal({ toJSON: () => ({ custom_id: 'upload-form', title: 'Send a file', components: [{ type: 18, label: 'Your save', component: { type: 19, custom_id: 'save', min_values: 1, max_values: 2, file_types: ['text/plain', '.csv'] } }] }) } as never);
    });
    const r = await invoke({ type: 2, data: { id: commands.feedback, name: 'feedback', type: 1 } });
    await opened;
    const submit = async (files: { name: string; type: string; text: string }[], refs: string[]) => {
      const form = new FormData();
      form.append('payload_json', JSON.stringify({ type: 5, channel_id: channelId, data: { id: r.body.id, custom_id: 'upload-form', values: { save: refs } } }));
      files.forEach((f, n) => form.append(`files[${n}]`, new Blob([f.text], { type: f.type }), f.name));
      const res = await fetch(`${t.api}/interactions`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
      return { status: res.status, body: await res.json() };
    };
    // A type the field does not take, and a field left empty, are refused before the bot hears of it.
    const wrongType = await submit([{ name: 'pic.png', type: 'image/png', text: 'x' }], ['0']);
    expect(wrongType.body.errors.data.components.save['0']._errors[0].code).toBe('FILE_TYPE_NOT_ALLOWED');
    expect((await submit([], [])).status).toBe(400);
    const got = nextInteraction(async (i) => {
      if (!i.isModalSubmit()) throw new Error('expected a modal submit');
      const files = i.fields.getUploadedFiles('save', true)!;
      expect([...files.values()].map((a) => a.name).sort()).toEqual(['save.txt', 'scores.csv']);
      const txt = [...files.values()].find((a) => a.name === 'save.txt')!;
      expect(await (await fetch(txt.url)).text()).toBe('level 3');
      await i.reply({ content: `got ${files.size} files`, flags: 64 });
    });
    const ok = await submit([{ name: 'save.txt', type: 'text/plain', text: 'level 3' }, { name: 'scores.csv', type: 'text/csv', text: 'a,b' }], ['0', '1']);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await got;
    await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'got 2 files');
  });

  it('components work by custom_id: a button click updates the message', async () => {
    const shown = nextInteraction(async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      await i.reply({ content: 'Press it', components: [{ type: 1, components: [{ type: 2, style: ButtonStyle.Primary, custom_id: 'press', label: 'Press' }, { type: 2, style: ButtonStyle.Secondary, custom_id: 'off', label: 'Off', disabled: true }] }] });
    });
    await invoke({ type: 2, data: { id: commands.buttons, name: 'buttons', type: 1 } });
    await shown;
    const msg = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'Press it');
    // A disabled or unknown custom_id is refused.
    expect((await invoke({ type: 3, message_id: msg.d.id, data: { custom_id: 'off', component_type: 2 } })).status).toBe(400);
    expect((await invoke({ type: 3, message_id: msg.d.id, data: { custom_id: 'nope', component_type: 2 } })).status).toBe(400);
    const clicked = nextInteraction(async (i) => {
      if (!i.isButton()) throw new Error('expected a button');
      expect(i.customId).toBe('press');
      expect(i.message.id).toBe(msg.d.id);
      await i.update({ content: 'Pressed!', components: [] });
    });
    expect((await invoke({ type: 3, message_id: msg.d.id, data: { custom_id: 'press', component_type: 2 } })).status).toBe(200);
    await clicked;
    const upd = await userGw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.id === msg.d.id && f.d.content === 'Pressed!');
    expect(upd.d.components).toEqual([]);
  });

  it('auto-populated selects: the chosen user and channel arrive resolved', async () => {
    const shown = nextInteraction(async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      await i.reply({ content: 'Pick', components: [{ type: 1, components: [{ type: 5, custom_id: 'who' }] }, { type: 1, components: [{ type: 8, custom_id: 'where', channel_types: [0] }] }] });
    });
    await invoke({ type: 2, data: { id: commands.buttons, name: 'buttons', type: 1 } });
    await shown;
    const msg = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'Pick');
    const pickedUser = nextInteraction(async (i) => {
      if (!i.isUserSelectMenu()) throw new Error('expected a user select');
      expect(i.customId).toBe('who');
      expect(i.users.first()!.id).toBe(user.userId);
      expect(i.members.first()).toBeTruthy();
      await i.deferUpdate();
    });
    expect((await invoke({ type: 3, message_id: msg.d.id, data: { custom_id: 'who', component_type: 5, values: [user.userId] } })).status).toBe(200);
    await pickedUser;
    // The raw payload too: a resolved channel carries app_permissions, the bot's in that channel.
    const raw: any[] = [];
    const onRaw = (packet: any) => void (packet.t === 'INTERACTION_CREATE' && raw.push(packet.d));
    bot.on('raw', onRaw);
    const pickedChannel = nextInteraction(async (i) => {
      if (!i.isChannelSelectMenu()) throw new Error('expected a channel select');
      expect(i.channels.first()!.id).toBe(channelId);
      await i.deferUpdate();
    });
    expect((await invoke({ type: 3, message_id: msg.d.id, data: { custom_id: 'where', component_type: 8, values: [channelId] } })).status).toBe(200);
    await pickedChannel;
    bot.off('raw', onRaw);
    const resolvedChannel = raw.find((d) => d.data?.custom_id === 'where')?.data?.resolved?.channels?.[channelId];
    expect(resolvedChannel?.app_permissions).toMatch(/^\d+$/);
    expect(BigInt(resolvedChannel.app_permissions) & 1024n).toBe(1024n); // VIEW_CHANNEL
    // An ID that is not a member is refused before the bot hears of it.
    expect((await invoke({ type: 3, message_id: msg.d.id, data: { custom_id: 'who', component_type: 5, values: ['123'] } })).status).toBe(400);
  });

  it('files: reply, editReply after a defer, and followUp carry attachments (multipart), served from signed URLs', async () => {
    const handled = nextInteraction(async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      await i.deferReply();
      const edited = await i.editReply({ content: 'score sheet', files: [{ attachment: Buffer.from('a,b\n1,2\n'), name: 'scores.csv' }] });
      expect(edited.attachments.first()!.name).toBe('scores.csv');
      const follow = await i.followUp({ content: 'and a note', files: [{ attachment: Buffer.from('hello'), name: 'note.txt' }] });
      expect(follow.attachments.first()!.name).toBe('note.txt');
    });
    await invoke({ type: 2, data: { id: commands.buttons, name: 'buttons', type: 1 } });
    await handled;
    const sheet = await userGw.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.content === 'score sheet');
    const got = await fetch(sheet.d.attachments[0].url);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('a,b\n1,2\n');
    const note = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'and a note');
    expect(await (await fetch(note.d.attachments[0].url)).text()).toBe('hello');
    const history = await t.req('GET', `/channels/${channelId}/messages`, { token: user.token });
    expect(history.body.find((m: { content: string }) => m.content === 'score sheet').attachments[0].filename).toBe('scores.csv');
  });

  it('user and message commands carry their target', async () => {
    const onUser = nextInteraction(async (i) => {
      if (!i.isUserContextMenuCommand()) throw new Error('expected a user command');
      expect(i.targetUser.id).toBe(bot.user!.id);
      await i.reply({ content: 'high five!', flags: 64 });
    });
    await invoke({ type: 2, data: { id: commands['High Five'], name: 'High Five', type: 2, target_id: bot.user!.id } });
    await onUser;
    const sent = await t.req('POST', `/channels/${channelId}/messages`, { token: user.token, body: { content: 'quote me' } });
    const onMessage = nextInteraction(async (i) => {
      if (!i.isMessageContextMenuCommand()) throw new Error('expected a message command');
      expect(i.targetMessage.id).toBe(sent.body.id);
      await i.reply(`"${i.targetMessage.content}"`);
    });
    await invoke({ type: 2, data: { id: commands.Quote, name: 'Quote', type: 3, target_id: sent.body.id } });
    await onMessage;
    const quoted = await userGw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.content === '"quote me"');
    expect(quoted.d.type).toBe(23);
  });

  it('LAUNCH_ACTIVITY is accepted and recorded for a command, refused for autocomplete; PREMIUM_REQUIRED still works, marked deprecated', async () => {
    let token = '';
    const got = nextInteraction((i) => {
      token = (i as unknown as { token: string }).token;
    });
    const r = await invoke({ type: 2, data: { id: commands.launch, name: 'launch', type: 1 } });
    await got;
    const cb = (body: unknown, id = r.body.id, tok = token) => fetch(`${t.api}/interactions/${id}/${tok}/callback?with_response=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const launched = await cb({ type: 12 });
    expect(launched.status).toBe(200);
    expect((await launched.json()).resource.type).toBe(12);
    const row = await t.server.interactions.repo.interaction(r.body.id);
    expect(row).toMatchObject({ state: 'responded', response_type: 12 });

    // PREMIUM_REQUIRED (10): deprecated in favour of a premium button, and so still answered,
    // with a Deprecation header.
    let premiumToken = '';
    const gotPremium = nextInteraction((i) => {
      premiumToken = (i as unknown as { token: string }).token;
    });
    const p = await invoke({ type: 2, data: { id: commands.launch, name: 'launch', type: 1 } });
    await gotPremium;
    const premium = await cb({ type: 10 }, p.body.id, premiumToken);
    expect(premium.status).toBe(200);
    expect(premium.headers.get('deprecation')).toBe('true');
    expect((await premium.json()).resource.type).toBe(10);
    expect(await t.server.interactions.repo.interaction(p.body.id)).toMatchObject({ state: 'responded', response_type: 10 });

    let acToken = '';
    const ac = nextInteraction(async (i) => {
      if (!i.isAutocomplete()) throw new Error('expected autocomplete');
      acToken = (i as unknown as { token: string }).token;
      expect(i.options.getFocused()).toBe('ap');
    });
    const a = await invoke({ type: 4, data: { id: commands.pick, name: 'pick', type: 1, options: [{ type: 3, name: 'fruit', value: 'ap', focused: true }] }, nonce: 'n-ac' });
    await ac;
    const refused = await cb({ type: 12 }, a.body.id, acToken);
    expect(refused.status).toBe(400);
    expect((await refused.json()).errors.type._errors[0].code).toBe('INTERACTION_RESPONSE_TYPE_INVALID');
    expect((await t.server.interactions.repo.interaction(a.body.id))!.state).toBe('pending');
    const ok = await cb({ type: 8, data: { choices: [{ name: 'Apple', value: 'apple' }] } }, a.body.id, acToken);
    expect(ok.status).toBe(200);
    expect((await userGw.next((f) => f.t === 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE' && f.d.nonce === 'n-ac')).d.choices).toEqual([{ name: 'Apple', value: 'apple' }]);
  });
});
