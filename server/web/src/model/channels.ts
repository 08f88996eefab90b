import type { ChannelType } from 'discord-api-types/v10';
import { Channel } from '../api/wire.ts';

/** The fields of a guild channel (GET /guilds/{id}/channels) that the app reads. */
export interface GuildChannel {
  id: string;
  type: ChannelType;
  name: string;
  position: number;
  parent_id?: string | null;
  topic?: string | null;
}

export interface ChannelGroup {
  /** Null for the channels outside any category, listed first. */
  category: GuildChannel | null;
  channels: GuildChannel[];
}

const byPosition = (a: GuildChannel, b: GuildChannel) => a.position - b.position || (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);

/**
 * Channels as the sidebar shows them: the ones without a category first, then each category in
 * `position` order with its channels in `position` order (ties by ID, oldest first, as the public
 * client sorts). A channel whose parent is not in the list (not visible to the caller) is shown
 * without a category rather than hidden.
 */
export function channelTree(channels: readonly GuildChannel[]): ChannelGroup[] {
  const categories = channels.filter((c) => c.type === Channel.GuildCategory).sort(byPosition);
  const ids = new Set(categories.map((c) => c.id));
  const rest = channels.filter((c) => c.type !== Channel.GuildCategory);
  const loose = rest.filter((c) => !c.parent_id || !ids.has(c.parent_id)).sort(byPosition);
  const groups: ChannelGroup[] = loose.length > 0 ? [{ category: null, channels: loose }] : [];
  for (const category of categories) groups.push({ category, channels: rest.filter((c) => c.parent_id === category.id).sort(byPosition) });
  return groups;
}

/**
 * The channel a guild opens on: its first text channel by `position` (ties by ID), whatever its
 * category, as the public client chooses; a channel made later, even outside any category and so
 * listed first in the sidebar, does not take #general's place. Null when the guild has no text
 * channel the caller can see.
 */
export function defaultChannel(channels: readonly GuildChannel[]): GuildChannel | null {
  return channels.filter(isText).sort(byPosition)[0] ?? null;
}

export function isVoice(c: GuildChannel): boolean {
  return c.type === Channel.GuildVoice || c.type === Channel.GuildStageVoice;
}

export function isText(c: GuildChannel): boolean {
  return c.type === Channel.GuildText || c.type === Channel.GuildAnnouncement;
}
