import type { LobbyMessage } from '@social-layer/protocol';
import { channelMessageRepo, type ChannelMessagesTable } from '../storage/ChannelMessageRepo.ts';
import { linkedChannelRepo, type LobbyMessageMirrorsTable } from '../storage/LinkedChannelRepo.ts';
import type { Store } from '../storage/Store.ts';

/** `additional_content` (ours, for MessageHandle.additionalContent): what a lobby cannot show of a channel message. */
export interface AdditionalContentWire {
  /** AdditionalContentType: Other 0, Attachment 1, Poll 2, VoiceMessage 3, Thread 4, Embed 5, Sticker 6. */
  type: number;
  count: number;
  title?: string;
}

/** Attachments, then embeds, then components (the first kind found, with its count). */
export function additionalContent(m: ChannelMessagesTable): AdditionalContentWire | undefined {
  const attachments = JSON.parse(m.attachments) as unknown[];
  if (attachments.length > 0) return { type: 1, count: attachments.length };
  const embeds = JSON.parse(m.embeds) as { title?: string }[];
  if (embeds.length > 0) return { type: 5, count: embeds.length, ...(embeds[0]?.title ? { title: embeds[0].title } : {}) };
  const components = JSON.parse(m.components) as unknown[];
  if (components.length > 0) return { type: 0, count: components.length };
  return undefined;
}

/** Adds the pair's `linked_message`, `edited_timestamp` and `additional_content` (ours) to a lobby message. */
export function decorateLobbyMessage(wire: LobbyMessage, pair: LobbyMessageMirrorsTable | undefined, extra?: AdditionalContentWire): LobbyMessage {
  if (!pair) return wire;
  wire.linked_message = { id: pair.channel_message_id, channel_id: pair.channel_id, guild_id: pair.guild_id, origin: pair.origin };
  if (pair.edited_at !== null) wire.edited_timestamp = new Date(Number(pair.edited_at)).toISOString();
  if (extra) wire.additional_content = extra;
  return wire;
}

/** Lobby history with each mirrored message's pair (LobbyService.history). */
export async function decorateLobbyMessages(store: Store, wires: LobbyMessage[]): Promise<LobbyMessage[]> {
  if (wires.length === 0) return wires;
  const links = linkedChannelRepo(store.database.db);
  const pairs = new Map((await links.mirrorsOfLobbyMessages(wires.map((w) => w.id))).map((p) => [p.lobby_message_id, p]));
  if (pairs.size === 0) return wires;
  const channelMessages = channelMessageRepo(store.database.db, store.ids);
  const out: LobbyMessage[] = [];
  for (const w of wires) {
    const p = pairs.get(w.id);
    const c = p?.origin === 'channel' ? await channelMessages.get(p.channel_message_id) : undefined;
    out.push(decorateLobbyMessage(w, p, c ? additionalContent(c) : undefined));
  }
  return out;
}
