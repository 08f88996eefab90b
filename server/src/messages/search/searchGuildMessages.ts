import type { APIMessage } from 'discord-api-types/v10';
import { viewGuild } from '../../guilds/GuildAccess.ts';
import { appReadsMessageContent } from '../appReadsMessageContent.ts';
import { GuildErrors } from '../../guilds/guildErrors.ts';
import { has, Permission } from '../../guilds/permissions.ts';
import type { Store } from '../../storage/Store.ts';
import type { ChannelMessagesTable } from '../../storage/ChannelMessageRepo.ts';
import type { MessageCaller, MessageService } from '../MessageService.ts';
import { HAS_TOKENS, queryWords } from './SearchIndex.ts';
import { metaFilter, type SearchService } from './SearchService.ts';

/** Text-like channel types whose messages are searched. */
const TEXT_TYPES = new Set([0, 2, 5]);

export interface SearchParams {
  content?: string;
  author_id?: string[];
  author_type?: string[];
  mentions?: string[];
  mention_everyone?: boolean;
  channel_id?: string[];
  has?: string[];
  max_id?: string;
  min_id?: string;
  sort_by?: 'timestamp' | 'relevance';
  sort_order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

export interface SearchResult {
  doing_deep_historical_index: boolean;
  total_results: number;
  messages: (APIMessage & { hit: true })[][];
  threads: unknown[];
  members: unknown[];
}

/**
 * Search Guild Messages: members only (10004 / 50001), bots only with the MESSAGE_CONTENT
 * intent enabled for their application (403 / 50001 otherwise, our reading of "needs the
 * intent"), and only in channels where the caller holds VIEW_CHANNEL and READ_MESSAGE_HISTORY;
 * naming a channel of another guild is 10003, one the caller cannot read 50001. Each hit comes
 * as a one-message array with `hit: true` (the public shape's context arrays are empty here).
 */
export async function searchGuildMessages(store: Store, search: SearchService, messages: MessageService, caller: MessageCaller, guildId: string, p: SearchParams): Promise<SearchResult> {
  const view = await viewGuild(store, guildId, caller.userId);
  if (caller.bot && !(await appReadsMessageContent(store, caller.applicationId))) throw GuildErrors.missingAccess();
  const channels = (await store.guilds.channels(guildId)).filter((c) => TEXT_TYPES.has(c.type));
  const readable = channels.filter((c) => has(view.channelPermissions(c), Permission.ViewChannel | Permission.ReadMessageHistory)).map((c) => c.id);
  let channelIds: string[] | null = readable.length === channels.length ? null : readable;
  if (p.channel_id?.length) {
    for (const id of p.channel_id) {
      if (!channels.some((c) => c.id === id)) throw GuildErrors.unknownChannel();
      if (!readable.includes(id)) throw GuildErrors.missingAccess();
    }
    channelIds = p.channel_id;
  }
  const empty: SearchResult = { doing_deep_historical_index: false, total_results: 0, messages: [], threads: [], members: [] };
  if (channelIds !== null && channelIds.length === 0) return empty;
  await search.requireReady(guildId);
  const words = p.content === undefined ? [] : queryWords(p.content);
  // Content with no word in it (only punctuation) matches nothing rather than everything.
  if (p.content !== undefined && p.content.trim() !== '' && words.length === 0) return empty;
  const filter = metaFilter({ authorIds: p.author_id, channelIds, mentions: p.mentions, mentionEveryone: p.mention_everyone, authorType: p.author_type, has: p.has }, HAS_TOKENS);
  const { ids, total } = await search.query({
    guildId,
    words,
    filter,
    ...(p.max_id !== undefined ? { maxId: p.max_id } : {}),
    ...(p.min_id !== undefined ? { minId: p.min_id } : {}),
    sort: p.sort_by ?? 'timestamp',
    order: p.sort_order ?? 'desc',
    limit: p.limit ?? 25,
    offset: p.offset ?? 0,
  });
  if (ids.length === 0) return { ...empty, total_results: total };
  const rows = await store.database.db.selectFrom('channel_messages').selectAll().where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Wire per channel (replies look their target up in the same channel), then in hit order.
  const byChannel = new Map<string, ChannelMessagesTable[]>();
  for (const r of rows) byChannel.set(r.channel_id, [...(byChannel.get(r.channel_id) ?? []), r]);
  const wires = new Map<string, APIMessage>();
  for (const list of byChannel.values()) for (const w of await messages.wires(list, caller)) wires.set(w.id, w);
  // A hit whose message was deleted after the index answered is left out.
  const live = new Set(channels.map((c) => c.id));
  const hits = ids.filter((id) => byId.has(id) && wires.has(id) && live.has(byId.get(id)!.channel_id)).map((id) => [{ ...wires.get(id)!, hit: true as const }]);
  return { doing_deep_historical_index: false, total_results: total, messages: hits, threads: [], members: [] };
}
