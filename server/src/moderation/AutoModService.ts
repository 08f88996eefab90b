import type { EventBus } from '../events/EventBus.ts';
import { viewGuild, type GuildView } from '../guilds/GuildAccess.ts';
import { GuildEvents } from '../guilds/GuildEvents.ts';
import { GuildErrors } from '../guilds/guildErrors.ts';
import { Permission } from '../guilds/permissions.ts';
import { ApiError } from '../errors/ApiError.ts';
import type { Store } from '../storage/Store.ts';
import type { GuildChannelsTable } from '../storage/guildSchema.ts';
import type { AutomodRulesTable } from '../storage/moderationSchema.ts';
import { AuditAction, auditLogFor, diff } from './AuditLog.ts';
import { compileKeywordsCached, unsafeRegex, type KeywordMatch, type KeywordTrigger } from './automodMatch.ts';

/** Public values. */
export const AutoModEventType = { MessageSend: 1 } as const;
export const AutoModTriggerType = { Keyword: 1 } as const;
export const AutoModActionType = { BlockMessage: 1 } as const;
const TRIGGER_TYPE_NAMES: Record<number, string> = { 1: 'KEYWORD', 3: 'SPAM', 4: 'KEYWORD_PRESET', 5: 'MENTION_SPAM', 6: 'MEMBER_PROFILE' };
/** Public limit: 6 KEYWORD rules per guild. */
const MAX_KEYWORD_RULES = 6;

export interface RuleInput {
  name?: string;
  event_type?: number;
  trigger_type?: number;
  trigger_metadata?: { keyword_filter?: string[]; regex_patterns?: string[]; allow_list?: string[] };
  actions?: { type: number; metadata?: { custom_message?: string } }[];
  enabled?: boolean;
  exempt_roles?: string[];
  exempt_channels?: string[];
}

export interface RuleWire {
  id: string;
  guild_id: string;
  name: string;
  creator_id: string;
  event_type: number;
  trigger_type: number;
  trigger_metadata: KeywordTrigger;
  actions: { type: number; metadata: { custom_message?: string } }[];
  enabled: boolean;
  exempt_roles: string[];
  exempt_channels: string[];
}

export const AutoModErrors = {
  unknownRule: () => new ApiError(404, 0, 'Unknown Auto Moderation Rule'),
  /** Public code 200000 (HTTP 400), for a create or an edit whose content a rule blocks. */
  blocked: () => new ApiError(400, 200000, 'Message was blocked by automatic moderation'),
};

function ruleWire(r: AutomodRulesTable): RuleWire {
  return {
    id: r.id,
    guild_id: r.guild_id,
    name: r.name,
    creator_id: r.creator_id,
    event_type: r.event_type,
    trigger_type: r.trigger_type,
    trigger_metadata: JSON.parse(r.trigger_metadata) as KeywordTrigger,
    actions: JSON.parse(r.actions) as RuleWire['actions'],
    enabled: r.enabled === 1,
    exempt_roles: JSON.parse(r.exempt_roles) as string[],
    exempt_channels: JSON.parse(r.exempt_channels) as string[],
  };
}

/**
 * AutoMod (issue 11): KEYWORD rules per guild with the public REST routes (MANAGE_GUILD), and
 * the check MessageService runs before a guild message is created or its content edited. A
 * block answers 400 / 200000 and writes nothing of the message; it records the audit entry
 * AUTO_MODERATION_BLOCK_MESSAGE (143) and sends AUTO_MODERATION_ACTION_EXECUTION to members with
 * MANAGE_GUILD. Rule changes send AUTO_MODERATION_RULE_CREATE/UPDATE/DELETE to the same members
 * and are audited (140-142).
 */
export class AutoModService {
  private readonly events: Pick<GuildEvents, 'publish'>;
  /** Rules per guild, dropped on every change here (and at most this old when another node changed them). */
  private readonly cache = new Map<string, { at: number; rules: (RuleWire & { match: (content: string) => KeywordMatch | undefined })[] }>();

  constructor(private readonly store: Store, bus: EventBus | null) {
    this.events = bus ? new GuildEvents(store, bus) : { publish: async () => 0 };
  }

  private async manager(userId: string, guildId: string): Promise<GuildView> {
    const v = await viewGuild(this.store, guildId, userId);
    v.require(Permission.ManageGuild);
    return v;
  }

  private async rows(guildId: string): Promise<AutomodRulesTable[]> {
    return this.store.database.db.selectFrom('automod_rules').selectAll().where('guild_id', '=', guildId).orderBy('id').execute();
  }

  async list(userId: string, guildId: string): Promise<RuleWire[]> {
    await this.manager(userId, guildId);
    return (await this.rows(guildId)).map(ruleWire);
  }

  async get(userId: string, guildId: string, ruleId: string): Promise<RuleWire> {
    await this.manager(userId, guildId);
    const r = (await this.rows(guildId)).find((x) => x.id === ruleId);
    if (!r) throw AutoModErrors.unknownRule();
    return ruleWire(r);
  }

  /** Checks a create or modify body against the guild: 50035 with the field path, before anything is written. */
  private async checkInput(v: GuildView, input: RuleInput): Promise<void> {
    if (input.event_type !== undefined && input.event_type !== AutoModEventType.MessageSend) throw GuildErrors.invalidForm(['event_type'], 'BASE_TYPE_CHOICES', 'Only MESSAGE_SEND (1) is supported here.');
    if (input.trigger_type !== undefined && input.trigger_type !== AutoModTriggerType.Keyword) throw GuildErrors.invalidForm(['trigger_type'], 'BASE_TYPE_CHOICES', 'Only KEYWORD (1) rules are supported here.');
    for (const [i, p] of (input.trigger_metadata?.regex_patterns ?? []).entries()) {
      const why = unsafeRegex(p);
      if (why) throw GuildErrors.invalidForm(['trigger_metadata', 'regex_patterns', String(i)], 'AUTO_MODERATION_INVALID_REGEX', why);
    }
    for (const [i, a] of (input.actions ?? []).entries()) {
      if (a.type !== AutoModActionType.BlockMessage) throw GuildErrors.invalidForm(['actions', String(i), 'type'], 'BASE_TYPE_CHOICES', 'Only BLOCK_MESSAGE (1) actions are supported here.');
    }
    if (input.actions !== undefined && input.actions.length === 0) throw GuildErrors.invalidForm(['actions'], 'BASE_TYPE_MIN_LENGTH', 'Must be 1 or more in length.');
    const roles = new Set(v.roles.map((r) => r.id));
    for (const [i, id] of (input.exempt_roles ?? []).entries()) if (!roles.has(id)) throw GuildErrors.invalidForm(['exempt_roles', String(i)], 'ROLE_INVALID', 'Unknown role in this guild');
    if (input.exempt_channels?.length) {
      const channels = new Set((await this.store.guilds.channels(v.guild.id)).map((c) => c.id));
      for (const [i, id] of input.exempt_channels.entries()) if (!channels.has(id)) throw GuildErrors.invalidForm(['exempt_channels', String(i)], 'CHANNEL_INVALID', 'Unknown channel in this guild');
    }
  }

  async create(userId: string, guildId: string, input: RuleInput & { name: string; event_type: number; trigger_type: number }, reason: string | null = null): Promise<RuleWire> {
    const v = await this.manager(userId, guildId);
    await this.checkInput(v, input);
    const existing = await this.rows(guildId);
    if (existing.filter((r) => r.trigger_type === AutoModTriggerType.Keyword).length >= MAX_KEYWORD_RULES) {
      throw GuildErrors.invalidForm(['trigger_type'], 'AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED', `Maximum number of rules of this trigger type reached (${MAX_KEYWORD_RULES})`);
    }
    const t = input.trigger_metadata ?? {};
    const row: AutomodRulesTable = {
      id: this.store.ids.next(),
      guild_id: guildId,
      name: input.name,
      creator_id: userId,
      event_type: input.event_type,
      trigger_type: input.trigger_type,
      trigger_metadata: JSON.stringify({ keyword_filter: t.keyword_filter ?? [], regex_patterns: t.regex_patterns ?? [], allow_list: t.allow_list ?? [] }),
      actions: JSON.stringify((input.actions ?? [{ type: 1 }]).map((a) => ({ type: a.type, metadata: a.metadata ?? {} }))),
      enabled: input.enabled ? 1 : 0,
      exempt_roles: JSON.stringify(input.exempt_roles ?? []),
      exempt_channels: JSON.stringify(input.exempt_channels ?? []),
      created_at: Date.now(),
    };
    await this.store.database.db.insertInto('automod_rules').values(row).execute();
    this.cache.delete(guildId);
    const wire = ruleWire(row);
    await auditLogFor(this.store).record({ guildId, userId, reason, actionType: AuditAction.AutoModerationRuleCreate, targetId: row.id, changes: diff(null, wire as never, ['name', 'event_type', 'trigger_type', 'trigger_metadata', 'actions', 'enabled', 'exempt_roles', 'exempt_channels']) });
    await this.events.publish(guildId, 'AUTO_MODERATION_RULE_CREATE', wire, { kind: 'permission', bit: Permission.ManageGuild });
    return wire;
  }

  async modify(userId: string, guildId: string, ruleId: string, input: RuleInput, reason: string | null = null): Promise<RuleWire> {
    const v = await this.manager(userId, guildId);
    const row = (await this.rows(guildId)).find((x) => x.id === ruleId);
    if (!row) throw AutoModErrors.unknownRule();
    if (input.trigger_type !== undefined && input.trigger_type !== row.trigger_type) throw GuildErrors.invalidForm(['trigger_type'], 'AUTO_MODERATION_TRIGGER_TYPE_IMMUTABLE', 'The trigger type of a rule cannot change.');
    await this.checkInput(v, input);
    const before = ruleWire(row);
    const set: Partial<AutomodRulesTable> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.event_type !== undefined) set.event_type = input.event_type;
    if (input.trigger_metadata !== undefined) {
      const t = { ...before.trigger_metadata, ...input.trigger_metadata };
      set.trigger_metadata = JSON.stringify({ keyword_filter: t.keyword_filter, regex_patterns: t.regex_patterns, allow_list: t.allow_list });
    }
    if (input.actions !== undefined) set.actions = JSON.stringify(input.actions.map((a) => ({ type: a.type, metadata: a.metadata ?? {} })));
    if (input.enabled !== undefined) set.enabled = input.enabled ? 1 : 0;
    if (input.exempt_roles !== undefined) set.exempt_roles = JSON.stringify(input.exempt_roles);
    if (input.exempt_channels !== undefined) set.exempt_channels = JSON.stringify(input.exempt_channels);
    if (Object.keys(set).length > 0) await this.store.database.db.updateTable('automod_rules').set(set).where('id', '=', ruleId).execute();
    this.cache.delete(guildId);
    const wire = ruleWire({ ...row, ...set });
    const changes = diff(before as never, wire as never, ['name', 'event_type', 'trigger_metadata', 'actions', 'enabled', 'exempt_roles', 'exempt_channels']);
    if (changes.length > 0) await auditLogFor(this.store).record({ guildId, userId, reason, actionType: AuditAction.AutoModerationRuleUpdate, targetId: ruleId, changes });
    await this.events.publish(guildId, 'AUTO_MODERATION_RULE_UPDATE', wire, { kind: 'permission', bit: Permission.ManageGuild });
    return wire;
  }

  async delete(userId: string, guildId: string, ruleId: string, reason: string | null = null): Promise<void> {
    await this.manager(userId, guildId);
    const row = (await this.rows(guildId)).find((x) => x.id === ruleId);
    if (!row) throw AutoModErrors.unknownRule();
    await this.store.database.db.deleteFrom('automod_rules').where('id', '=', ruleId).execute();
    this.cache.delete(guildId);
    await auditLogFor(this.store).record({ guildId, userId, reason, actionType: AuditAction.AutoModerationRuleDelete, targetId: ruleId, changes: [{ key: 'name', old_value: row.name }] });
    await this.events.publish(guildId, 'AUTO_MODERATION_RULE_DELETE', ruleWire(row), { kind: 'permission', bit: Permission.ManageGuild });
  }

  private async enabledRules(guildId: string): Promise<(RuleWire & { match: (content: string) => KeywordMatch | undefined })[]> {
    const hit = this.cache.get(guildId);
    if (hit && Date.now() - hit.at < 5_000) return hit.rules;
    const rules = (await this.rows(guildId)).filter((r) => r.enabled === 1).map(ruleWire).map((r) => ({ ...r, match: compileKeywordsCached(r.trigger_metadata) }));
    this.cache.set(guildId, { at: Date.now(), rules });
    return rules;
  }

  /**
   * Before a guild message is created or its content edited: throws 400 / 200000 when an
   * enabled KEYWORD rule that does not exempt the author's roles or the channel matches.
   */
  async check(view: GuildView, channel: GuildChannelsTable, content: string): Promise<void> {
    if (content === '') return;
    const rules = await this.enabledRules(channel.guild_id);
    if (rules.length === 0) return;
    const roles = new Set(view.member.roles);
    for (const rule of rules) {
      if (rule.event_type !== AutoModEventType.MessageSend || rule.trigger_type !== AutoModTriggerType.Keyword) continue;
      if (rule.exempt_channels.includes(channel.id) || (channel.parent_id !== null && rule.exempt_channels.includes(channel.parent_id))) continue;
      if (rule.exempt_roles.some((r) => roles.has(r))) continue;
      const match = rule.match(content);
      if (!match) continue;
      const action = rule.actions.find((a) => a.type === AutoModActionType.BlockMessage) ?? { type: 1, metadata: {} };
      await auditLogFor(this.store).record({
        guildId: channel.guild_id,
        userId: view.userId,
        actionType: AuditAction.AutoModerationBlockMessage,
        targetId: view.userId,
        options: { auto_moderation_rule_name: rule.name, auto_moderation_rule_trigger_type: String(rule.trigger_type), channel_id: channel.id },
        reason: null,
      });
      await this.events.publish(channel.guild_id, 'AUTO_MODERATION_ACTION_EXECUTION', {
        guild_id: channel.guild_id,
        action,
        rule_id: rule.id,
        rule_trigger_type: rule.trigger_type,
        user_id: view.userId,
        channel_id: channel.id,
        content,
        matched_keyword: match.keyword,
        matched_content: match.content,
      }, { kind: 'permission', bit: Permission.ManageGuild });
      // The rule's custom_message is for the sender's client to show; the API answer is the public one.
      throw AutoModErrors.blocked();
    }
  }
}

export { TRIGGER_TYPE_NAMES };

const byStore = new WeakMap<Store, AutoModService>();

/**
 * One AutoMod service per store. The server's route registration makes it with the bus; callers
 * without one (MessageService) get that one, or a silent one when no server registered it.
 */
export function autoModFor(store: Store, bus?: EventBus): AutoModService {
  let s = byStore.get(store);
  if (!s) byStore.set(store, (s = new AutoModService(store, bus ?? null)));
  return s;
}
