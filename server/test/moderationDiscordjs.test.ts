import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuditLogEvent, AutoModerationActionType, AutoModerationRuleEventType, AutoModerationRuleTriggerType, Client, DiscordAPIError, Events, GatewayIntentBits,
  type AutoModerationActionExecution, type AutoModerationRule, type GuildAuditLogsEntry, type TextChannel,
} from 'discord.js';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Issue 11's AutoMod and audit log with discord.js v14, unmodified: the bot creates, fetches,
 * edits and deletes a keyword rule (autoModerationRuleCreate), a player's blocked message reaches
 * it as autoModerationActionExecution, its own blocked send and edit reject with DiscordAPIError
 * 200000, and fetchAuditLogs / guildAuditLogEntryCreate carry the entries (with the reason).
 */
let t: TestServer;
let bot: Client;
let guildId: string;
let channelId: string;
let user: { token: string; userId: string };

const BOT_PERMISSIONS = Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory | Permission.ManageGuild | Permission.ViewAuditLog | Permission.PinMessages;

beforeAll(async () => {
  t = await startTestServer();
  const g = await t.guest('Player');
  user = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
  const services = guildServicesFor(t.server.store, undefined as never);
  guildId = (await services.guilds.createGuild(user.userId, { name: 'Discord.js Moderation' })).id;
  channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
  await services.installBot(guildId, t.app.id, BOT_PERMISSIONS);
  bot = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.GuildModeration, GatewayIntentBits.AutoModerationConfiguration, GatewayIntentBits.AutoModerationExecution],
    rest: { api: `${t.server.url}/api` },
  });
  const ready = new Promise<void>((resolve) => bot.once(Events.ClientReady, () => resolve()));
  await bot.login(t.app.botToken);
  await ready;
  // GUILD_CREATE follows READY: wait until the guild is cached.
  for (let i = 0; i < 100 && !bot.guilds.cache.has(guildId); i++) await new Promise((r) => setTimeout(r, 50));
});
afterAll(async () => {
  await bot?.destroy();
  await t.close();
  cleanupTempDirs();
});

describe('discord.js AutoMod and audit log', () => {
  let rule: AutoModerationRule;

  it('creates and fetches a keyword rule, and hears autoModerationRuleCreate', async () => {
    const guild = bot.guilds.cache.get(guildId)!;
    const heard = new Promise<AutoModerationRule>((resolve) => bot.once(Events.AutoModerationRuleCreate, resolve));
    rule = await guild.autoModerationRules.create({
      name: 'No spoilers',
      eventType: AutoModerationRuleEventType.MessageSend,
      triggerType: AutoModerationRuleTriggerType.Keyword,
      triggerMetadata: { keywordFilter: ['spoiler*'], allowList: ['spoilersafe'] },
      actions: [{ type: AutoModerationActionType.BlockMessage, metadata: { customMessage: 'No spoilers here' } }],
      enabled: true,
      reason: 'season finale',
    });
    expect(rule.name).toBe('No spoilers');
    expect(rule.triggerMetadata.keywordFilter).toEqual(['spoiler*']);
    expect((await heard).id).toBe(rule.id);
    const fetched = await guild.autoModerationRules.fetch({ cache: false });
    expect([...fetched.keys()]).toEqual([rule.id]);
  });

  it('blocks a player\'s message (autoModerationActionExecution) and the bot\'s own send and edit (DiscordAPIError 200000)', async () => {
    const executed = new Promise<AutoModerationActionExecution>((resolve) => bot.once(Events.AutoModerationActionExecution, resolve));
    const r = await t.req('POST', `/channels/${channelId}/messages`, { token: user.token, body: { content: 'SPOILERS: everyone dies' } });
    expect([r.status, r.body.code]).toEqual([400, 200000]);
    const ex = await executed;
    expect(ex.ruleId).toBe(rule.id);
    expect(ex.userId).toBe(user.userId);
    expect(ex.matchedKeyword).toBe('spoiler*');
    expect(ex.action.type).toBe(AutoModerationActionType.BlockMessage);

    const channel = bot.channels.cache.get(channelId) as TextChannel;
    const sendError = await channel.send('a spoiler from the bot').catch((e: unknown) => e);
    expect(sendError).toBeInstanceOf(DiscordAPIError);
    expect([(sendError as DiscordAPIError).code, (sendError as DiscordAPIError).status]).toEqual([200000, 400]);
    const ok = await channel.send('spoilersafe talk only');
    const editError = await ok.edit('now a spoiler').catch((e: unknown) => e);
    expect([(editError as DiscordAPIError).code, (editError as DiscordAPIError).status]).toEqual([200000, 400]);
    await ok.pin();
  });

  it('reads the entries with fetchAuditLogs and hears guildAuditLogEntryCreate', async () => {
    const guild = bot.guilds.cache.get(guildId)!;
    const heard = new Promise<GuildAuditLogsEntry>((resolve) => bot.on(Events.GuildAuditLogEntryCreate, (e) => e.action === AuditLogEvent.AutoModerationRuleUpdate && resolve(e)));
    await rule.edit({ name: 'No spoilers at all' });
    const update = await heard;
    expect(update.executorId).toBe(bot.user!.id);
    expect(update.changes).toEqual([{ key: 'name', old: 'No spoilers', new: 'No spoilers at all' }]);

    const created = await guild.fetchAuditLogs({ type: AuditLogEvent.AutoModerationRuleCreate });
    const entry = created.entries.first()!;
    expect([entry.targetId, entry.executorId, entry.reason]).toEqual([rule.id, bot.user!.id, 'season finale']);
    const blocks = await guild.fetchAuditLogs({ type: AuditLogEvent.AutoModerationBlockMessage, user: user.userId });
    expect(blocks.entries.first()!.extra).toMatchObject({ autoModerationRuleName: 'No spoilers', channel: { id: channelId } });
    const pins = await guild.fetchAuditLogs({ type: AuditLogEvent.MessagePin, limit: 1 });
    expect(pins.entries.first()!.extra).toMatchObject({ channel: { id: channelId } });
    expect(pins.entries.first()!.targetId).toBe(bot.user!.id);

    await rule.delete();
    expect((await guild.autoModerationRules.fetch({ cache: false })).size).toBe(0);
  });
});
