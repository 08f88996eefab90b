import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ButtonStyle, Client, Events, GatewayIntentBits } from 'discord.js';
import { launchChromium } from '../../tools/testing/chromium.ts';
import { build } from '../web/build.mjs';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Issue 13 in the web app, driven in Chromium: a user types `/` in a channel's message box, picks
 * a discord.js bot's slash command, fills its option and runs it; "the application is thinking"
 * shows while the bot defers, then the bot's edited reply. A modal opens as a dialog and its value
 * reaches the bot; a button in the bot's message is clicked by custom_id; user and channel
 * selects offer the guild's members and channels and the choice reaches the bot; a command nobody
 * answers ends as "interaction failed". Screenshots: test-results/interactions-*.png.
 */
const RESULTS = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), 'test-results');
let t: TestServer;
let browser: Browser;
let page: Page;
let bot: Client;
let guildId: string;
let channelId: string;
let release: () => void = () => {};

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  await build();
  t = await startTestServer({ accounts: { passwordCost: { N: 1 << 12, r: 8, p: 1 } } });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(`${t.server.url}/app`);
  await page.click('a[href^="/signup"]');
  await page.fill('#login', 'ada_cmd');
  await page.fill('#display_name', 'Ada');
  await page.fill('#password', 'correct horse battery');
  await page.click('#sign-up');
  await page.waitForSelector('#home');
  await page.fill('#guild-name', 'Command Hall');
  await page.click('#create-guild-submit');
  await page.waitForURL(/\/app\/guilds\/\d+$/);
  guildId = /\/app\/guilds\/(\d+)$/.exec(page.url())![1]!;
  channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
  await guildServicesFor(t.server.store, undefined as never).installBot(guildId, t.app.id, Permission.ViewChannel | Permission.SendMessages);

  bot = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: `${t.server.url}/api` } });
  await new Promise<void>((r) => {
    bot.once(Events.ClientReady, () => r());
    void bot.login(t.app.botToken);
  });
  await bot.application!.commands.set([
    { name: 'roll', description: 'Roll a die', options: [{ type: 4, name: 'sides', description: 'How many sides', required: true, min_value: 2 }] },
    { name: 'form', description: 'Open a form' },
    { name: 'press', description: 'Show a button' },
    { name: 'silent', description: 'Nobody answers' },
    { name: 'upload', description: 'Send a file' },
    { name: 'pick', description: 'Pick a player and a channel' },
    { name: 'game', description: 'Game commands', options: [
      { type: 1, name: 'start', description: 'Start a match', options: [{ type: 3, name: 'map', description: 'Which map', required: true, autocomplete: true }] },
      { type: 1, name: 'stop', description: 'Stop the match' },
    ] },
  ]);
  bot.on(Events.InteractionCreate, async (i) => {
    if (i.isChatInputCommand() && i.commandName === 'roll') {
      await i.deferReply();
      await new Promise<void>((r) => (release = r));
      await i.editReply(`Rolled a d${i.options.getInteger('sides')}: 4`);
    } else if (i.isChatInputCommand() && i.commandName === 'form') {
      await i.showModal({ toJSON: () => ({ custom_id: 'f', title: 'Tell us', components: [{ type: 18, label: 'Favourite game', component: { type: 4, custom_id: 'game', style: 1 } }] }) } as never);
    } else if (i.isChatInputCommand() && i.commandName === 'upload') {
      await i.showModal({ toJSON: () => ({ custom_id: 'u', title: 'Send a file', components: [{ type: 18, label: 'Replay', component: { type: 19, custom_id: 'doc', file_types: ['text/plain'] } }] }) } as never);
    } else if (i.isModalSubmit() && i.customId === 'u') {
      const file = i.fields.getUploadedFiles('doc', true)!.first()!;
      await i.reply(`got ${file.name}: ${await (await fetch(file.url)).text()}`);
    } else if (i.isModalSubmit()) {
      await i.reply(`You like ${i.fields.getTextInputValue('game')}`);
    } else if (i.isChatInputCommand() && i.commandName === 'press') {
      await i.reply({ content: 'Press the button', components: [{ type: 1, components: [{ type: 2, style: ButtonStyle.Success, custom_id: 'go', label: 'Go' }] }] });
    } else if (i.isAutocomplete() && i.commandName === 'game') {
      const typedSoFar = i.options.getFocused();
      await i.respond(['desert', 'dungeon', 'harbour'].filter((m) => m.startsWith(typedSoFar)).map((m) => ({ name: m.toUpperCase(), value: m })));
    } else if (i.isChatInputCommand() && i.commandName === 'game') {
      await i.reply(`${i.options.getSubcommand()} on ${i.options.getString('map')}`);
    } else if (i.isChatInputCommand() && i.commandName === 'pick') {
      await i.reply({ content: 'Who and where?', components: [
        { type: 1, components: [{ type: 5, custom_id: 'who', placeholder: 'Pick a player' }] },
        { type: 1, components: [{ type: 8, custom_id: 'where', placeholder: 'Pick a channel', channel_types: [0] }] },
      ] });
    } else if (i.isUserSelectMenu() && i.customId === 'who') {
      await i.reply(`Picked player ${i.users.first()!.globalName ?? i.users.first()!.username} (${i.members.size} member)`);
    } else if (i.isChannelSelectMenu() && i.customId === 'where') {
      await i.reply(`Picked channel #${(i.channels.first() as { name?: string }).name}`);
    } else if (i.isButton() && i.customId === 'go') {
      await i.update({ content: 'Button pressed by custom_id', components: [] });
    }
  });
  await page.goto(`${t.server.url}/app/guilds/${guildId}/channels/${channelId}`);
  await page.waitForSelector('#composer-input');
}, 180_000);

afterAll(async () => {
  await bot?.destroy();
  await browser?.close();
  await t?.close();
  cleanupTempDirs();
});

const shot = (name: string) => page.screenshot({ path: join(RESULTS, `interactions-${name}.png`) });

describe('commands in the web app (Chromium)', () => {
  it('types /, picks the slash command, fills its option, sees "thinking" then the reply', async () => {
    await page.click('#composer-input');
    await page.keyboard.type('/ro');
    await page.waitForSelector('#command-picker [data-command="roll"]');
    await shot('picker');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#command-options');
    await page.fill('#command-options input[name="sides"]', '20');
    await page.click('#command-run');
    await page.waitForSelector('#interaction-status.cmd-thinking', { timeout: 15_000 });
    await shot('thinking');
    release();
    await page.waitForSelector('text=Rolled a d20: 4', { timeout: 15_000 });
    await shot('reply');
    // The composer did not send "/ro" as a message.
    const history = await t.req('GET', `/channels/${channelId}/messages`, { token: t.app.botToken, bot: true });
    expect(history.body.some((m: { content: string }) => m.content.startsWith('/'))).toBe(false);
  });

  it('a modal opens as a dialog and its value reaches the bot', async () => {
    await page.click('#composer-input');
    await page.keyboard.type('/form');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#interaction-modal');
    await page.fill('#interaction-modal input[name="game"]', 'Chess');
    await shot('modal');
    await page.click('#modal-submit');
    await page.waitForSelector('text=You like Chess', { timeout: 15_000 });
    expect(await page.locator('#interaction-modal').count()).toBe(0);
  });

  it('a modal\'s File Upload sends the chosen file', async () => {
    await page.click('#composer-input');
    await page.keyboard.type('/upload');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#interaction-modal input[type="file"][name="doc"]');
    await page.setInputFiles('#interaction-modal input[name="doc"]', { name: 'replay.txt', mimeType: 'text/plain', buffer: Buffer.from('move 1: e4') });
    await page.click('#modal-submit');
    await page.waitForSelector('text=got replay.txt: move 1: e4', { timeout: 15_000 });
  });

  it('a button in the bot\'s message is clicked by custom_id', async () => {
    await page.click('#composer-input');
    await page.keyboard.type('/press');
    await page.keyboard.press('Enter');
    await page.waitForSelector('button[data-custom-id="go"]', { timeout: 15_000 });
    await page.click('button[data-custom-id="go"]');
    await page.waitForSelector('text=Button pressed by custom_id', { timeout: 15_000 });
    await shot('button');
  });

  it('user and channel selects offer the guild\'s members and channels; the choice reaches the bot resolved', async () => {
    await page.click('#composer-input');
    await page.keyboard.type('/pick');
    await page.keyboard.press('Enter');
    const who = 'select[data-custom-id="who"]';
    const where = 'select[data-custom-id="where"]';
    await page.waitForSelector(`${who}:not([disabled])`, { timeout: 15_000 });
    await page.waitForSelector(`${where}:not([disabled])`, { timeout: 15_000 });
    // Members (Ada and the bot) and the text channels only (channel_types [0]: no voice channel).
    const whoLabels = await page.locator(`${who} option`).allTextContents();
    expect(whoLabels).toContain('Ada');
    expect(whoLabels.length).toBe(3);
    const whereLabels = await page.locator(`${where} option`).allTextContents();
    expect(whereLabels).toContain('#general');
    expect(whereLabels.some((l) => l.startsWith('🔊'))).toBe(false);
    await shot('selects');
    await page.selectOption(who, { label: 'Ada' });
    await page.waitForSelector('text=Picked player Ada (1 member)', { timeout: 15_000 });
    await page.selectOption(where, { label: '#general' });
    await page.waitForSelector('text=Picked channel #general', { timeout: 15_000 });
    await shot('selects-picked');
  });

  it('a sub-command with an autocomplete option: suggestions come from the bot', async () => {
    await page.click('#composer-input');
    await page.keyboard.type('/game');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#command-options select[name="subcommand"]');
    expect(await page.locator('#command-options select[name="subcommand"] option').allTextContents()).toEqual(['start', 'stop']);
    await page.fill('#command-options input[name="map"]', 'd');
    await page.waitForFunction(() => document.querySelectorAll('#ac-map option').length === 2, undefined, { timeout: 15_000 });
    expect(await page.locator('#ac-map option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['desert', 'dungeon']);
    await shot('autocomplete');
    await page.fill('#command-options input[name="map"]', 'dungeon');
    await page.click('#command-run');
    await page.waitForSelector('text=start on dungeon', { timeout: 15_000 });
  });

  it('a command nobody answers ends as "interaction failed"', async () => {
    await page.click('#composer-input');
    await page.keyboard.type('/silent');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#interaction-status.cmd-failed', { timeout: 20_000 });
    expect(await page.textContent('#interaction-status')).toContain('Interaction failed');
    await shot('failed');
  });
});
