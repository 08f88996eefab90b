import type { APIEmbed, APIMessage } from 'discord-api-types/v10';
import { type GuildView } from '../guilds/GuildAccess.ts';
import type { GuildEvents } from '../guilds/GuildEvents.ts';
import type { ChannelMessagesTable, ChannelMessageRepo } from '../storage/ChannelMessageRepo.ts';
import type { GuildChannelsTable } from '../storage/guildSchema.ts';
import type { Store } from '../storage/Store.ts';

/** One uploaded file of a multipart Create Message (`files[n]`): `size` bytes in a temporary file at `path`, which the attachment store takes (putFile). */
export interface UploadedFile {
  index: number;
  filename: string;
  contentType: string;
  size: number;
  path: string;
}

export interface MessageServiceOptions {
  /** The public origin, for attachment URLs. */
  publicUrl?: () => string;
  /** The data folder: attachments under `attachments/`, the URL signing key beside them. */
  dataDir?: string;
}

/** Who calls: a user, or an application's bot user (whose app's flags decide MESSAGE_CONTENT). */
export interface MessageCaller {
  userId: string;
  bot: boolean;
  /** The token's application: a bot's own, or the application a Bearer token was granted to. */
  applicationId: string;
  /** A Bearer token's scopes (absent for bots). DMs and group DMs check the application instead (privateChannels.mayUse). */
  scopes?: string[];
  /** The request's X-Audit-Log-Reason, for the deletes and pins the audit log records. */
  auditReason?: string | null;
}

export interface CreateMessageBody {
  content?: string;
  nonce?: string | number;
  enforce_nonce?: boolean;
  tts?: boolean;
  embeds?: APIEmbed[];
  components?: unknown[];
  flags?: number;
  allowed_mentions?: { parse?: string[]; users?: string[]; roles?: string[]; replied_user?: boolean };
  message_reference?: { type?: number; message_id?: string; channel_id?: string; guild_id?: string; fail_if_not_exists?: boolean };
  attachments?: { id: string | number; filename?: string; description?: string; is_spoiler?: boolean }[];
  /** The public poll create request (polls.ts checks it). */
  poll?: unknown;
}

export interface EditMessageBody {
  content?: string | null;
  embeds?: APIEmbed[] | null;
  components?: unknown[] | null;
  flags?: number | null;
  allowed_mentions?: CreateMessageBody['allowed_mentions'] | null;
  /** The attachments to keep (by ID), with `description`/`is_spoiler` changes; the rest are removed. */
  attachments?: { id: string | number; filename?: string; description?: string; is_spoiler?: boolean }[] | null;
}

/** Guild text, voice and announcement channels; DMs (1) and group DMs (3) of full accounts (privateChannels.ts). */

/**
 * What the reactions, pins and bulk deletes (messageReactions.ts, messagePins.ts,
 * messageBulkDelete.ts) need of MessageService, which
 * makes them and hands them this: the caller's access to a channel, its messages and their wire
 * shape, and the guild dispatch.
 */
export interface MessageHost {
  readonly store: Store;
  readonly repo: ChannelMessageRepo;
  readonly events: Pick<GuildEvents, 'publish'>;
  access(caller: MessageCaller, channelId: string, opts?: { send?: boolean }): Promise<{ view: GuildView; channel: GuildChannelsTable; perms: bigint }>;
  message(channelId: string, messageId: string): Promise<ChannelMessagesTable>;
  wire(row: ChannelMessagesTable, caller: MessageCaller): Promise<APIMessage>;
  wires(rows: ChannelMessagesTable[], caller: MessageCaller): Promise<APIMessage[]>;
  publishMessage(t: string, channel: GuildChannelsTable, wire: APIMessage, view?: GuildView): Promise<void>;
  /** Removes the stored files of deleted messages. */
  dropAttachments(rows: ChannelMessagesTable[]): Promise<void>;
}
