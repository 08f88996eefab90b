import type { EventBus, Dispatch } from '../events/EventBus.ts';
import type { Session } from '../gateway/Session.ts';
import { guildUserTopic } from './GuildEvents.ts';
import type { GuildServices } from './GuildServices.ts';
import type { GuildCreateVoiceState } from './GuildService.ts';
import { memberWire } from './guildWire.ts';
import { MESSAGE_INTENT_OF, messageJsonForSession } from '../messages/messageGateway.ts';
import { DM_INTENT_OF } from '../messages/privateChannels.ts';
import { allowedPrivileged } from './intentApproval.ts';
import { ApplicationIntentFlag, Intent, PRIVILEGED_INTENTS } from './intents.ts';
import { addGuildCreatePresences } from './guildCreatePresences.ts';
import type { GuildPresenceFanout } from './GuildPresenceFanout.ts';
import { MemoryRateLimitStore, type RateLimitStore } from '../events/RateLimitStore.ts';

export { ApplicationIntentFlag, Intent, PRIVILEGED_INTENTS } from './intents.ts';

/** Identify `capabilities` bit that opts into channel obfuscation (spec, Gateway). */
export const CAPABILITY_CHANNEL_OBFUSCATION = 1 << 15;

const INTENT_OF: Record<string, number> = {
  GUILD_CREATE: Intent.Guilds, GUILD_UPDATE: Intent.Guilds, GUILD_DELETE: Intent.Guilds,
  GUILD_ROLE_CREATE: Intent.Guilds, GUILD_ROLE_UPDATE: Intent.Guilds, GUILD_ROLE_DELETE: Intent.Guilds,
  CHANNEL_CREATE: Intent.Guilds, CHANNEL_UPDATE: Intent.Guilds, CHANNEL_DELETE: Intent.Guilds,
  GUILD_MEMBER_ADD: Intent.GuildMembers, GUILD_MEMBER_UPDATE: Intent.GuildMembers, GUILD_MEMBER_REMOVE: Intent.GuildMembers,
  GUILD_BAN_ADD: Intent.GuildModeration, GUILD_BAN_REMOVE: Intent.GuildModeration,
  INVITE_CREATE: Intent.GuildInvites, INVITE_DELETE: Intent.GuildInvites,
  GUILD_EMOJIS_UPDATE: Intent.GuildExpressions,
  // Messages (issue 11): MESSAGE_*, reactions, TYPING_START, CHANNEL_PINS_UPDATE.
  ...MESSAGE_INTENT_OF,
  VOICE_CHANNEL_STATUS_UPDATE: Intent.Guilds,
  // Issue 11: voice start time, AutoMod (AUTO_MODERATION_CONFIGURATION 1<<20, _EXECUTION 1<<21), the audit log (GUILD_MODERATION).
  VOICE_CHANNEL_START_TIME_UPDATE: Intent.Guilds,
  AUTO_MODERATION_RULE_CREATE: 1 << 20, AUTO_MODERATION_RULE_UPDATE: 1 << 20, AUTO_MODERATION_RULE_DELETE: 1 << 20,
  AUTO_MODERATION_ACTION_EXECUTION: 1 << 21,
  GUILD_AUDIT_LOG_ENTRY_CREATE: Intent.GuildModeration,
  VOICE_STATE_UPDATE: 1 << 7, // GUILD_VOICE_STATES (guild voice, server/src/voice/)
  PRESENCE_UPDATE: Intent.GuildPresences, // guild members' presences (GuildPresenceFanout)
};

/** The privileged intents an application's flags allow. */
export function allowedPrivilegedIntents(flags: bigint): number {
  const on = (bit: number) => (flags & BigInt(bit)) !== 0n;
  let allowed = 0;
  if (on(ApplicationIntentFlag.GatewayGuildMembers) || on(ApplicationIntentFlag.GatewayGuildMembersLimited)) allowed |= Intent.GuildMembers;
  if (on(ApplicationIntentFlag.GatewayPresence) || on(ApplicationIntentFlag.GatewayPresenceLimited)) allowed |= Intent.GuildPresences;
  if (on(ApplicationIntentFlag.GatewayMessageContent) || on(ApplicationIntentFlag.GatewayMessageContentLimited)) allowed |= Intent.MessageContent;
  return allowed;
}

interface SessionGuildState {
  intents: number;
  capabilities: number;
  unsubscribe: () => void;
  /** A bot user's session: the MESSAGE_CONTENT rule applies to it (messages/messageGateway.ts). */
  bot: boolean;
  /** Whether DM and group DM events reach it: bots and the first-party web app, no third-party Bearer token (privateChannels.mayUse). */
  dms: boolean;
  /**
   * A game's session that hears no guild (its token reads none over REST either): only its own
   * VOICE_STATE_UPDATE reaches it, which the SDK's guild voice call needs to connect.
   */
  selfVoiceOnly: boolean;
  /** Identify's `large_threshold`: over it, GUILD_CREATE leaves offline members out. */
  largeThreshold: number;
}

/** All-members requests: 1 per guild per bot per 30 s (spec, Limits). */
const ALL_MEMBERS_WINDOW_MS = 30_000;
const CHUNK_SIZE = 1000;

/**
 * The guild side of the Gateway: which guilds READY lists, GUILD_CREATE after READY, the intent
 * and capability filter on each session's guild dispatches, op 8 Request Guild Members and op 43
 * Request Channel Info. Permission filtering happened at publish time (GuildEvents).
 */
export class GuildGateway {
  private readonly states = new Map<string, SessionGuildState>();

  /** Who is in the guild's voice channels (set by startServer from the voice state service). */
  voiceStates: (guildId: string) => readonly GuildCreateVoiceState[] = () => [];

  /** Guild members' presences for GUILD_CREATE and op 8 (set by startServer); none: empty lists. */
  presences: GuildPresenceFanout | null = null;

  /**
   * `allMembersLimit` counts all-members requests per bot and guild: in memory on one node, in
   * Redis (startServer passes the shared limiter store) when nodes scale out, so a bot cannot
   * get a second full list within 30 s by asking through another node.
   */
  constructor(
    private readonly services: GuildServices,
    private readonly bus: EventBus,
    private readonly allMembersLimit: RateLimitStore = new MemoryRateLimitStore(),
  ) {}

  /** False when `intents` asks for a privileged intent the application has not enabled (close 4014). */
  async privilegedIntentsAllowed(applicationId: string, intents: number): Promise<boolean> {
    const wanted = intents & PRIVILEGED_INTENTS;
    if (wanted === 0) return true;
    const app = await this.services.store.applications.get(applicationId);
    if (!app) return false;
    // Engineer B's migration keeps every flag bit as a decimal string (flags_new); older rows use `flags`.
    const raw = (app as { flags_new?: string | null }).flags_new;
    const flags = raw ? BigInt(raw) : BigInt(app.flags ?? 0);
    // Cheap check first: flags alone would not allow it. Then the size rule (intentApproval.ts).
    if ((wanted & ~allowedPrivilegedIntents(flags)) !== 0) return false;
    return (wanted & ~(await allowedPrivileged(this.services.store, applicationId, flags))) === 0;
  }

  /** READY `guilds`: every guild the user is in, as Unavailable Guild objects; GUILD_CREATE follows. */
  async readyGuilds(userId: string): Promise<{ id: string; unavailable: true }[]> {
    return (await this.services.store.guilds.idsOfUser(userId, 2500)).map((id) => ({ id, unavailable: true }));
  }

  /**
   * Subscribes the session to its user's guild topic with its intent and capability filter.
   * `bot`: whether the user is a bot, when the caller already read the user (Identify did).
   */
  async attach(session: Session, intents: number, capabilities: number, bot?: boolean, selfVoiceOnly = false, largeThreshold = 50): Promise<void> {
    // Known before the first dispatch can arrive, so no message slips past the content rule.
    bot ??= (await this.services.store.users.get(session.userId))?.is_bot === 1;
    // The portal toggle turns obfuscation on for every bot session of the application.
    const app = await this.services.store.applications.get(session.applicationId);
    if (bot && app?.channel_obfuscation === 1) capabilities |= CAPABILITY_CHANNEL_OBFUSCATION;
    const dms = bot || app?.first_party === 1;
    if (session.closed) return;
    const topic = guildUserTopic(session.userId);
    const unsubscribe = this.bus.subscribe(topic, (d) => this.deliver(session, d));
    this.states.set(session.id, { intents, capabilities, unsubscribe, bot, dms, selfVoiceOnly, largeThreshold });
    await this.bus.whenSubscribed(topic);
  }

  detach(sessionId: string): void {
    this.states.get(sessionId)?.unsubscribe();
    this.states.delete(sessionId);
  }

  /** One GUILD_CREATE per guild after READY (only with the GUILDS intent, as discord.js expects). */
  async sendGuildCreates(session: Session, guildIds: string[]): Promise<void> {
    const st = this.states.get(session.id);
    if (!st || st.selfVoiceOnly || (st.intents & Intent.Guilds) === 0) return;
    for (const id of guildIds) await this.sendGuildCreate(session, id, st);
  }

  /**
   * Without GUILD_PRESENCES, GUILD_CREATE's `members` holds only the session's own member (the
   * public rule: the bot and users in voice; voice is not in guilds yet); the rest comes by op 8.
   * With it, the members (the online ones only in a guild over `large_threshold`) and their presences.
   */
  private async sendGuildCreate(session: Session, guildId: string, st: SessionGuildState): Promise<void> {
    // `voice_states` comes with GUILD_VOICE_STATES only (public rule), as VOICE_STATE_UPDATE does.
    const voiceStates = (st.intents & INTENT_OF.VOICE_STATE_UPDATE!) !== 0 ? this.voiceStates(guildId) : [];
    const withPresences = (st.intents & Intent.GuildPresences) !== 0;
    let payload = await this.services.guilds
      .guildCreatePayload(guildId, session.userId, { members: withPresences, obfuscate: (st.capabilities & CAPABILITY_CHANNEL_OBFUSCATION) !== 0, voiceStates })
      .catch(() => null);
    // `large` is the member count over the session's `large_threshold`, with or without presences.
    if (payload) payload = withPresences && this.presences ? await addGuildCreatePresences(payload, this.presences, st.largeThreshold, session.userId) : { ...payload, large: payload.member_count > st.largeThreshold };
    if (payload && !session.closed) session.dispatch({ t: 'GUILD_CREATE', json: JSON.stringify(payload) });
  }

  private deliver(session: Session, d: Dispatch): void {
    const st = this.states.get(session.id);
    if (!st) return;
    const bar = d.t.indexOf('|');
    const t = bar < 0 ? d.t : d.t.slice(0, bar);
    const qualifier = bar < 0 ? '' : d.t.slice(bar + 1);
    if (st.selfVoiceOnly && !(qualifier === 'self' && t === 'VOICE_STATE_UPDATE')) return;
    if (qualifier === 'build') {
      if ((st.intents & Intent.Guilds) !== 0) void this.sendGuildCreate(session, (JSON.parse(d.json) as { id: string }).id, st);
      return;
    }
    if (qualifier === 'hidden' && (st.capabilities & CAPABILITY_CHANNEL_OBFUSCATION) === 0) return;
    // `|dm`: a full account's DM or group DM event (messages/privateChannels.ts): DM intents, and
    // no MESSAGE_CONTENT rule (DMs are exempt, public rule).
    if (qualifier === 'dm' && !st.dms) return;
    const need = qualifier === 'dm' ? DM_INTENT_OF[t] : INTENT_OF[t];
    // GUILD_MEMBER_UPDATE about oneself is sent regardless of intents (protocols.md 1.10).
    // So is one's own VOICE_STATE_UPDATE: the joining client needs its session_id to connect.
    const exempt = qualifier === 'self' && (t === 'GUILD_MEMBER_UPDATE' || t === 'VOICE_STATE_UPDATE');
    if (need !== undefined && (st.intents & need) === 0 && !exempt) return;
    const json = qualifier === 'dm' ? d.json : messageJsonForSession(t, d.json, { userId: session.userId, bot: st.bot, intents: st.intents });
    session.dispatch(qualifier === '' && json === d.json ? d : { t, json });
  }

  /**
   * Op 8. Returns false when the payload is malformed (the connection closes with 4001). A
   * request for all members beyond 1 per guild per bot per 30 s gets RATE_LIMITED; chunks are
   * not counted. The full list needs GUILD_MEMBERS, presences need GUILD_PRESENCES: without
   * them the request is ignored.
   */
  async requestGuildMembers(session: Session, d: unknown): Promise<boolean> {
    if (typeof d !== 'object' || d === null) return false;
    const r = d as { guild_id?: unknown; query?: unknown; limit?: unknown; presences?: unknown; user_ids?: unknown; nonce?: unknown };
    const guildId = Array.isArray(r.guild_id) && r.guild_id.length === 1 ? r.guild_id[0] : r.guild_id;
    if (typeof guildId !== 'string' || !/^\d{1,20}$/.test(guildId)) return false;
    if (r.query !== undefined && r.query !== null && typeof r.query !== 'string') return false;
    if (r.limit !== undefined && r.limit !== null && !(typeof r.limit === 'number' && Number.isInteger(r.limit) && r.limit >= 0)) return false;
    let userIds: string[] | undefined;
    if (r.user_ids !== undefined && r.user_ids !== null) {
      const list = Array.isArray(r.user_ids) ? r.user_ids : [r.user_ids];
      if (list.length > 100 || !list.every((x) => (typeof x === 'string' && /^\d{1,20}$/.test(x)) || (typeof x === 'number' && Number.isSafeInteger(x)))) return false;
      userIds = list.map(String);
    }
    // Nonces over 32 bytes are ignored (public rule), not refused.
    const nonce = typeof r.nonce === 'string' && Buffer.byteLength(r.nonce) <= 32 ? r.nonce : undefined;
    const st = this.states.get(session.id);
    if (!st) return true;
    const store = this.services.store;
    if (!(await store.guildMembers.isMember(guildId, session.userId))) return true;
    const query = typeof r.query === 'string' ? r.query : '';
    const limit = typeof r.limit === 'number' ? r.limit : 0;
    const allMembers = !userIds && query === '' && limit === 0;
    if ((allMembers && (st.intents & Intent.GuildMembers) === 0) || (r.presences === true && (st.intents & Intent.GuildPresences) === 0)) return true;

    if (allMembers) {
      // A fixed window opened by the first request: later ones inside it are refused (and do
      // not move it), so the next full list is allowed 30 s after the last one granted.
      const now = Date.now();
      const w = await this.allMembersLimit.hit(`op8:${session.applicationId}:${session.userId}:${guildId}`, ALL_MEMBERS_WINDOW_MS, now);
      if (w.count > 1) {
        const retryAfter = Math.max(0.001, (w.resetAt - now) / 1000);
        session.dispatch({ t: 'RATE_LIMITED', json: JSON.stringify({ opcode: 8, retry_after: retryAfter, meta: { guild_id: guildId, ...(nonce !== undefined ? { nonce } : {}) } }) });
        return true;
      }
    }

    const members = userIds
      ? await store.guildMembers.list(guildId, { userIds, limit: 100 })
      : await store.guildMembers.list(guildId, { limit: allMembers ? 1_000_000 : Math.min(limit || 100, 100), ...(query ? { query } : {}) });
    const wires = members.map((m) => memberWire(m));
    const notFound = userIds ? userIds.filter((id) => !members.some((m) => m.member.user_id === id)) : [];
    const chunkCount = Math.max(1, Math.ceil(wires.length / CHUNK_SIZE));
    for (let i = 0; i < chunkCount; i++) {
      // The presences of this chunk's members that are not offline (public rule).
      const presences = r.presences === true ? ((await this.presences?.presencesIn(guildId, members.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE).map((m) => m.member.user_id))) ?? []) : undefined;
      const chunk = {
        guild_id: guildId,
        members: wires.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE),
        chunk_index: i,
        chunk_count: chunkCount,
        ...(i === 0 && userIds ? { not_found: notFound } : {}),
        ...(presences ? { presences } : {}),
        ...(nonce !== undefined ? { nonce } : {}),
      };
      session.dispatch({ t: 'GUILD_MEMBERS_CHUNK', json: JSON.stringify(chunk) });
    }
    return true;
  }

  /** Op 43: CHANNEL_INFO with each voice channel's `status` and `voice_start_time` (those the caller may view). */
  async requestChannelInfo(session: Session, d: unknown): Promise<boolean> {
    if (typeof d !== 'object' || d === null) return false;
    const r = d as { guild_id?: unknown; fields?: unknown };
    if (typeof r.guild_id !== 'string' || !/^\d{1,20}$/.test(r.guild_id)) return false;
    const fields = Array.isArray(r.fields) ? r.fields.filter((f): f is string => f === 'status' || f === 'voice_start_time') : ['status', 'voice_start_time'];
    const visible = await this.services.guilds.listChannels(session.userId, r.guild_id).catch(() => null);
    if (!visible) return true;
    const ids = new Set(visible.filter((c) => c.type === 2).map((c) => c.id));
    const rows = (await this.services.store.guilds.channels(r.guild_id)).filter((c) => ids.has(c.id));
    const channels = rows.map((c) => ({
      id: c.id,
      ...(fields.includes('status') ? { status: c.status } : {}),
      ...(fields.includes('voice_start_time') ? { voice_start_time: c.voice_start_time === null ? null : Number(c.voice_start_time) } : {}),
    }));
    session.dispatch({ t: 'CHANNEL_INFO', json: JSON.stringify({ guild_id: r.guild_id, channels }) });
    return true;
  }

  /** Stops the in-memory counter's sweep (a shared store is closed by its owner). */
  async close(): Promise<void> {
    if (this.allMembersLimit instanceof MemoryRateLimitStore) await this.allMembersLimit.close();
  }
}
