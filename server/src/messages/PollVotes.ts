import type { APIMessage, APIUser } from 'discord-api-types/v10';
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { EventBus } from '../events/EventBus.ts';
import { FieldErrors } from '../applications/formErrors.ts';
import { guildServicesFor } from '../guilds/GuildServices.ts';
import type { GuildEvents } from '../guilds/GuildEvents.ts';
import { has, Permission } from '../guilds/permissions.ts';
import { userWire } from '../guilds/guildWire.ts';
import { ApiError } from '../errors/ApiError.ts';
import type { Database } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { MessageErrors as E } from './messageErrors.ts';
import { type MessageCaller, messageServiceFor } from './MessageService.ts';
import type { StoredPoll } from './polls.ts';
import { privateChannelsFor } from './privateChannels.ts';

/** The public poll error codes (discord-api-types RESTJSONErrorCodes). */
const PollErrors = {
  expired: () => new ApiError(400, 520001, 'Poll expired'),
  notAPoll: () => new ApiError(400, 520006, 'Cannot expire a non-poll message'),
  botsCannot: () => new ApiError(403, 20001, 'Bots cannot use this endpoint'),
};

/**
 * Poll votes on channel messages: the client's vote route (ours: replace the caller's answers),
 * Get Answer Voters, End Poll; MESSAGE_POLL_VOTE_ADD/REMOVE to who can view the channel
 * (GUILD_MESSAGE_POLLS, DIRECT_MESSAGE_POLLS in DMs).
 */
export class PollVotes {
  private readonly events: Pick<GuildEvents, 'publish'>;
  constructor(private readonly store: Store, bus: EventBus) {
    this.events = privateChannelsFor(store, bus).publisher(guildServicesFor(store, bus).events);
    this.messagesBus = bus;
  }
  private readonly messagesBus: EventBus;
  private get db(): Kysely<Database> {
    return this.store.database.db;
  }
  private get messages() {
    return messageServiceFor(this.store, this.messagesBus);
  }

  /** The message and its poll, where the caller may read history. */
  private async pollMessage(caller: MessageCaller, channelId: string, messageId: string) {
    const access = await this.messages.access(caller, channelId);
    if (!has(access.perms, Permission.ReadMessageHistory)) throw E.missingPermissions();
    const row = await this.messages.repo.inChannel(channelId, messageId);
    if (!row) throw E.unknownMessage();
    return { ...access, row, poll: row.poll ? (JSON.parse(row.poll) as StoredPoll) : null };
  }

  /** Sets the caller's answers to `answerIds` (empty: withdraws the vote). Users only; not after expiry. */
  async vote(caller: MessageCaller, channelId: string, messageId: string, answerIds: (string | number)[]): Promise<void> {
    if (caller.bot) throw PollErrors.botsCannot();
    const { channel, row, poll } = await this.pollMessage(caller, channelId, messageId);
    if (!poll) throw E.invalidForm(['answer_ids'], 'POLL_NOT_FOUND', 'This message has no poll.');
    if (Date.parse(poll.expiry) <= Date.now()) throw PollErrors.expired();
    const errs = new FieldErrors();
    const ids = [...new Set(answerIds.map((x) => Number(x)))];
    ids.forEach((id, i) => {
      if (!poll.answers.some((a) => a.answer_id === id)) errs.add(['answer_ids', i], 'BASE_TYPE_CHOICES', `Unknown answer ${answerIds[i]}.`);
    });
    if (ids.length > 1 && !poll.allow_multiselect) errs.add(['answer_ids'], 'BASE_TYPE_MAX_LENGTH', 'This poll takes one answer.');
    errs.throwIfAny();
    const now = Date.now();
    const { added, removed } = await this.db.transaction().execute(async (tx) => {
      // One user's votes on one poll change one request at a time: on PostgreSQL a transaction
      // lock on (message, user) (SQLite runs one transaction at a time). Without it two votes at
      // once each see no earlier vote and a single-answer poll ends up with two.
      if (this.db.getExecutor().adapter instanceof PostgresAdapter) await sql`SELECT pg_advisory_xact_lock(hashtext(${row.id}), hashtext(${caller.userId}))`.execute(tx);
      // Events follow what the statements actually changed (RETURNING), not what was read before.
      const removed = (await tx.deleteFrom('channel_message_poll_votes').where('message_id', '=', row.id).where('user_id', '=', caller.userId)
        .$if(ids.length > 0, (q) => q.where('answer_id', 'not in', ids)).returning('answer_id').execute()).map((r) => r.answer_id);
      const added: number[] = [];
      for (const id of ids) {
        const r = await tx.insertInto('channel_message_poll_votes').values({ message_id: row.id, answer_id: id, user_id: caller.userId, created_at: now })
          .onConflict((oc) => oc.columns(['message_id', 'answer_id', 'user_id']).doNothing()).returning('answer_id').executeTakeFirst();
        if (r) added.push(r.answer_id);
      }
      return { added, removed };
    });
    const base = { user_id: caller.userId, channel_id: channel.id, message_id: row.id, ...(channel.guild_id ? { guild_id: channel.guild_id } : {}) };
    for (const id of removed) await this.events.publish(channel.guild_id, 'MESSAGE_POLL_VOTE_REMOVE', { ...base, answer_id: id }, { kind: 'channel', channel });
    for (const id of added) await this.events.publish(channel.guild_id, 'MESSAGE_POLL_VOTE_ADD', { ...base, answer_id: id }, { kind: 'channel', channel });
  }

  /** Get Answer Voters: `{users}` who chose the answer, by user ID after `after`, at most `limit` (1-100, 25). */
  async voters(caller: MessageCaller, channelId: string, messageId: string, answerId: number, q: { after?: string; limit?: number }): Promise<{ users: APIUser[] }> {
    const { poll, row } = await this.pollMessage(caller, channelId, messageId);
    if (!poll || !poll.answers.some((a) => a.answer_id === answerId)) throw E.invalidForm(['answer_id'], 'BASE_TYPE_CHOICES', 'Unknown answer.');
    let sel = this.db.selectFrom('channel_message_poll_votes').select('user_id').where('message_id', '=', row.id).where('answer_id', '=', answerId);
    // Snowflakes as text: order by length, then text (numeric order), as the reactions list does.
    if (q.after) sel = sel.where((eb) => eb.or([eb(eb.fn('length', ['user_id']), '>', q.after!.length), eb.and([eb(eb.fn('length', ['user_id']), '=', q.after!.length), eb('user_id', '>', q.after!)])]));
    const ids = (await sel.orderBy((eb) => eb.fn('length', ['user_id'])).orderBy('user_id').limit(q.limit ?? 25).execute()).map((r) => r.user_id);
    const users = await this.store.users.getMany(ids);
    return { users: ids.map((id) => users.get(id)).filter((u) => u !== undefined).map((u) => userWire(u) as APIUser) };
  }

  /** End Poll: its author only; the expiry becomes now (results final); MESSAGE_UPDATE. */
  async expire(caller: MessageCaller, channelId: string, messageId: string): Promise<APIMessage> {
    const { poll, row } = await this.pollMessage(caller, channelId, messageId);
    if (!poll) throw PollErrors.notAPoll();
    if (row.author_id !== caller.userId) throw E.editOthers();
    if (Date.parse(poll.expiry) <= Date.now()) throw PollErrors.expired();
    await this.messages.repo.update(this.db, row.id, { poll: JSON.stringify({ ...poll, expiry: new Date().toISOString() }) });
    return this.messages.republish(caller, row.id);
  }
}

const byStore = new WeakMap<Store, PollVotes>();
export function pollVotesFor(store: Store, bus: EventBus): PollVotes {
  let s = byStore.get(store);
  if (!s) byStore.set(store, (s = new PollVotes(store, bus)));
  return s;
}
