import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { authenticate } from '../auth.ts';
import { BEARER_OR_BOT, NoContent } from '../schemas/index.ts';
import { Errors } from '../ApiError.ts';
import { Snowflake } from './guildRouteHelpers.ts';
import { messageServiceFor, type MessageCaller } from '../../messages/MessageService.ts';
import { IndexNotReady, installSearchTap, searchServiceFor } from '../../messages/search/SearchService.ts';
import { searchGuildMessages } from '../../messages/search/searchGuildMessages.ts';
import { HAS_TOKENS } from '../../messages/search/SearchIndex.ts';
import { autoModFor } from '../../moderation/AutoModService.ts';
import { auditLogFor, entryWire } from '../../moderation/AuditLog.ts';
import { installRequestAudit } from '../requestAudit.ts';
import { installAuditTap, recordPrune, snapshotBefore } from '../../moderation/auditTap.ts';
import { watchVoiceStartTime } from '../../voice/voiceChannelStatus.ts';
import { viewGuild } from '../../guilds/GuildAccess.ts';
import { Permission } from '../../guilds/permissions.ts';
import { userWire } from '../../guilds/guildWire.ts';

const GuildParams = Type.Object({ guild_id: Type.String() });
const RuleParams = Type.Object({ guild_id: Type.String(), rule_id: Type.String() });
const TAGS = ['Moderation'];

/** Rate budgets per caller: search is the expensive read. */
export const SEARCH_READ = { bucket: 'messages.search', limit: 5, windowMs: 1_000 };
export const MODERATION_READ = { bucket: 'moderation.read', limit: 20, windowMs: 1_000 };
export const MODERATION_WRITE = { bucket: 'moderation.write', limit: 5, windowMs: 1_000 };

/** One value or a repeated query parameter. */
const OneOrMany = <T extends Parameters<typeof Type.Array>[0]>(t: T, max: number) => Type.Union([t, Type.Array(t, { maxItems: max })]);
const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
const HasValue = Type.Union([...Object.keys(HAS_TOKENS), ...Object.keys(HAS_TOKENS).map((k) => `-${k}`)].map((k) => Type.Literal(k)));
const AuthorType = Type.Union(['user', 'bot', 'webhook', '-user', '-bot', '-webhook'].map((k) => Type.Literal(k)));

const SearchQuery = Type.Object({
  content: Type.Optional(Type.String({ maxLength: 1024 })),
  author_id: Type.Optional(OneOrMany(Snowflake, 100)),
  author_type: Type.Optional(OneOrMany(AuthorType, 6)),
  mentions: Type.Optional(OneOrMany(Snowflake, 100)),
  mention_everyone: Type.Optional(Type.Boolean()),
  channel_id: Type.Optional(OneOrMany(Snowflake, 500)),
  has: Type.Optional(OneOrMany(HasValue, 18)),
  max_id: Type.Optional(Snowflake),
  min_id: Type.Optional(Snowflake),
  sort_by: Type.Optional(Type.Union([Type.Literal('timestamp'), Type.Literal('relevance')])),
  sort_order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 9975 })),
});
const SearchResponse = Type.Object({
  doing_deep_historical_index: Type.Boolean(),
  total_results: Type.Integer(),
  messages: Type.Array(Type.Array(Type.Object({ id: Snowflake, hit: Type.Optional(Type.Boolean()) }, { additionalProperties: true }))),
  threads: Type.Array(Type.Unknown()),
  members: Type.Array(Type.Unknown()),
}, { title: 'GuildMessageSearchResults' });
const IndexNotReadyResponse = Type.Object({ message: Type.String(), code: Type.Literal(110000), documents_indexed: Type.Integer(), retry_after: Type.Number() }, { title: 'IndexNotYetAvailable' });

const Keyword = Type.String({ minLength: 1, maxLength: 60 });
const RuleBody = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  event_type: Type.Integer({ minimum: 1, maximum: 2 }),
  trigger_type: Type.Integer({ minimum: 1, maximum: 6 }),
  trigger_metadata: Type.Object({
    keyword_filter: Type.Optional(Type.Array(Keyword, { maxItems: 1000 })),
    regex_patterns: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 260 }), { maxItems: 10 })),
    allow_list: Type.Optional(Type.Array(Keyword, { maxItems: 100 })),
  }),
  actions: Type.Array(Type.Object({
    type: Type.Integer({ minimum: 1, maximum: 4 }),
    metadata: Type.Optional(Type.Object({ custom_message: Type.Optional(Type.String({ maxLength: 150 })), channel_id: Type.Optional(Snowflake), duration_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 2419200 })) })),
  }), { minItems: 1, maxItems: 5 }),
  enabled: Type.Boolean(),
  exempt_roles: Type.Array(Snowflake, { maxItems: 20 }),
  exempt_channels: Type.Array(Snowflake, { maxItems: 50 }),
};
const CreateRule = Type.Object({
  name: RuleBody.name, event_type: RuleBody.event_type, trigger_type: RuleBody.trigger_type,
  trigger_metadata: Type.Optional(RuleBody.trigger_metadata), actions: RuleBody.actions,
  enabled: Type.Optional(RuleBody.enabled), exempt_roles: Type.Optional(RuleBody.exempt_roles), exempt_channels: Type.Optional(RuleBody.exempt_channels),
});
const ModifyRule = Type.Object({
  name: Type.Optional(RuleBody.name), event_type: Type.Optional(RuleBody.event_type), trigger_type: Type.Optional(RuleBody.trigger_type),
  trigger_metadata: Type.Optional(RuleBody.trigger_metadata), actions: Type.Optional(RuleBody.actions),
  enabled: Type.Optional(RuleBody.enabled), exempt_roles: Type.Optional(RuleBody.exempt_roles), exempt_channels: Type.Optional(RuleBody.exempt_channels),
});
const Rule = Type.Object({
  id: Snowflake, guild_id: Snowflake, name: Type.String(), creator_id: Snowflake, event_type: Type.Integer(), trigger_type: Type.Integer(),
  trigger_metadata: Type.Object({}, { additionalProperties: true }), actions: Type.Array(Type.Object({}, { additionalProperties: true })),
  enabled: Type.Boolean(), exempt_roles: Type.Array(Snowflake), exempt_channels: Type.Array(Snowflake),
}, { title: 'AutoModerationRule' });

const AuditQuery = Type.Object({
  user_id: Type.Optional(Snowflake),
  action_type: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  before: Type.Optional(Snowflake),
  after: Type.Optional(Snowflake),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
const AuditEntry = Type.Object({
  id: Snowflake, target_id: Type.Union([Type.String(), Type.Null()]), user_id: Type.Union([Snowflake, Type.Null()]), action_type: Type.Integer(),
  changes: Type.Optional(Type.Array(Type.Object({ key: Type.String() }, { additionalProperties: true }))),
  options: Type.Optional(Type.Record(Type.String(), Type.String())), reason: Type.Optional(Type.String()),
}, { title: 'AuditLogEntry' });
const AuditLogResponse = Type.Object({
  application_commands: Type.Array(Type.Unknown()), audit_log_entries: Type.Array(AuditEntry), auto_moderation_rules: Type.Array(Rule),
  guild_scheduled_events: Type.Array(Type.Unknown()), integrations: Type.Array(Type.Unknown()), threads: Type.Array(Type.Unknown()),
  users: Type.Array(Type.Object({ id: Snowflake }, { additionalProperties: true })), webhooks: Type.Array(Type.Unknown()),
}, { title: 'AuditLog' });

const doc = (summary: string, response: Record<number, unknown>) => ({ summary, tags: TAGS, security: BEARER_OR_BOT, response });

/** Bots, or users through a Bearer token with the `guilds` scope (the guild routes' rule). */
async function caller(req: FastifyRequest, ctx: ServerContext): Promise<MessageCaller> {
  const p = await authenticate(req, ctx.store);
  if (p.kind === 'bot') return { userId: p.botUserId, bot: true, applicationId: p.applicationId };
  if (!p.scopes.includes('guilds')) throw Errors.missingScope('guilds');
  return { userId: p.userId, bot: false, applicationId: p.applicationId };
}

/** The acting user of a request for the audit log: the token's user or bot user; null when not authenticated. */
async function actorOf(req: FastifyRequest, ctx: ServerContext): Promise<string | null> {
  if (!req.headers.authorization) return null;
  const p = await authenticate(req, ctx.store);
  return p.kind === 'bot' ? p.botUserId : p.userId;
}

/**
 * Issue 11's moderation surfaces: Search Guild Messages, AutoMod rules, the audit log; and the
 * request-wide X-Audit-Log-Reason. Also starts (resumes) unfinished search index builds.
 */
export function moderationRouteFamily(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const search = searchServiceFor(ctx.store);
  const messages = messageServiceFor(ctx.store, ctx.bus, { publicUrl: () => ctx.publicHttpUrl(), ...(ctx.dataDir ? { dataDir: ctx.dataDir } : {}) });
  const automod = autoModFor(ctx.store, ctx.bus);
  const audit = auditLogFor(ctx.store, ctx.bus);

  // Every write request carries its audit reason and actor (`req.audit`, http/requestAudit.ts).
  installRequestAudit(app, (req) => actorOf(req, ctx));
  app.addHook('preHandler', async (req) => {
    if (req.audit) await snapshotBefore(ctx.store, req.audit, req.method, req.routeOptions.url, req.params as Record<string, string>, req.body);
  });
  // A prune's removals are one entry, written once the request is done.
  app.addHook('onResponse', async (req) => {
    if (req.audit) await recordPrune(ctx.store, req.audit).catch(() => undefined);
  });
  const untapAudit = installAuditTap(ctx.store);
  const untapSearch = installSearchTap(ctx.store);
  const untap = () => {
    untapAudit();
    untapSearch();
  };
  const unwatch = ctx.voiceStates ? watchVoiceStartTime(ctx.store, ctx.bus, ctx.voiceStates, ctx.log) : () => undefined;
  app.addHook('onReady', async () => {
    await search.resume();
  });
  app.addHook('onClose', async () => {
    search.stop();
    untap();
    unwatch();
  });

  r.get('/api/v10/guilds/:guild_id/messages/search', {
    schema: { ...doc('Search Guild Messages', { 200: SearchResponse, 202: IndexNotReadyResponse }), params: GuildParams, querystring: SearchQuery },
    config: { rateLimit: SEARCH_READ },
  }, async (req, reply) => {
    const q = req.query;
    try {
      return await searchGuildMessages(ctx.store, search, messages, await caller(req, ctx), req.params.guild_id, {
        ...q,
        author_id: list(q.author_id), author_type: list(q.author_type), mentions: list(q.mentions), channel_id: list(q.channel_id), has: list(q.has),
      } as never);
    } catch (e) {
      if (!(e instanceof IndexNotReady)) throw e;
      void reply.code(202);
      return { message: 'Index not yet available. Try again later', code: 110000 as const, documents_indexed: e.documentsIndexed, retry_after: e.retryAfter };
    }
  });

  r.get('/api/v10/guilds/:guild_id/auto-moderation/rules', { schema: { ...doc('List Auto Moderation Rules for Guild', { 200: Type.Array(Rule) }), params: GuildParams }, config: { rateLimit: MODERATION_READ } }, async (req) => {
    return automod.list((await caller(req, ctx)).userId, req.params.guild_id);
  });
  r.get('/api/v10/guilds/:guild_id/auto-moderation/rules/:rule_id', { schema: { ...doc('Get Auto Moderation Rule', { 200: Rule }), params: RuleParams }, config: { rateLimit: MODERATION_READ } }, async (req) => {
    return automod.get((await caller(req, ctx)).userId, req.params.guild_id, req.params.rule_id);
  });
  r.post('/api/v10/guilds/:guild_id/auto-moderation/rules', { schema: { ...doc('Create Auto Moderation Rule', { 200: Rule }), params: GuildParams, body: CreateRule }, config: { rateLimit: MODERATION_WRITE } }, async (req) => {
    return automod.create((await caller(req, ctx)).userId, req.params.guild_id, req.body, req.audit?.reason ?? null);
  });
  r.patch('/api/v10/guilds/:guild_id/auto-moderation/rules/:rule_id', { schema: { ...doc('Modify Auto Moderation Rule', { 200: Rule }), params: RuleParams, body: ModifyRule }, config: { rateLimit: MODERATION_WRITE } }, async (req) => {
    return automod.modify((await caller(req, ctx)).userId, req.params.guild_id, req.params.rule_id, req.body, req.audit?.reason ?? null);
  });
  r.delete('/api/v10/guilds/:guild_id/auto-moderation/rules/:rule_id', { schema: { ...doc('Delete Auto Moderation Rule', { 204: NoContent }), params: RuleParams }, config: { rateLimit: MODERATION_WRITE } }, async (req, reply) => {
    await automod.delete((await caller(req, ctx)).userId, req.params.guild_id, req.params.rule_id, req.audit?.reason ?? null);
    void reply.code(204);
  });

  r.get('/api/v10/guilds/:guild_id/audit-logs', {
    schema: { ...doc('Get Guild Audit Log', { 200: AuditLogResponse }), params: GuildParams, querystring: AuditQuery },
    config: { rateLimit: MODERATION_READ },
  }, async (req) => {
    const c = await caller(req, ctx);
    const v = await viewGuild(ctx.store, req.params.guild_id, c.userId);
    v.require(Permission.ViewAuditLog);
    const q = req.query;
    const rows = await audit.list(req.params.guild_id, {
      ...(q.user_id !== undefined ? { userId: q.user_id } : {}),
      ...(q.action_type !== undefined ? { actionType: q.action_type } : {}),
      ...(q.before !== undefined ? { before: q.before } : {}),
      ...(q.after !== undefined ? { after: q.after } : {}),
      limit: q.limit ?? 50,
    });
    const userIds = [...new Set(rows.flatMap((e) => [e.user_id, e.target_id]).filter((id): id is string => id !== null))];
    const users = await ctx.store.users.getMany(userIds);
    const ruleIds = new Set(rows.filter((e) => e.action_type >= 140 && e.action_type <= 142).map((e) => e.target_id));
    const rules = ruleIds.size > 0 ? (await automod.list(c.userId, req.params.guild_id).catch(() => [])).filter((x) => ruleIds.has(x.id)) : [];
    return {
      application_commands: [],
      audit_log_entries: rows.map(entryWire),
      auto_moderation_rules: rules,
      guild_scheduled_events: [],
      integrations: [],
      threads: [],
      users: [...users.values()].map(userWire),
      webhooks: [],
    };
  });
}

