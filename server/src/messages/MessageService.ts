import type { APIEmbed, APIMessage, APIMessageReference } from 'discord-api-types/v10';
import type { EventBus } from '../events/EventBus.ts';
import { viewChannel, type GuildView } from '../guilds/GuildAccess.ts';
import type { GuildEvents } from '../guilds/GuildEvents.ts';
import { guildServicesFor } from '../guilds/GuildServices.ts';
import { memberWire } from '../guilds/guildWire.ts';
import { has, mayDo, Permission } from '../guilds/permissions.ts';
import type { ChannelMessagesTable, ChannelMessageRepo } from '../storage/ChannelMessageRepo.ts';
import { channelMessageRepo } from '../storage/ChannelMessageRepo.ts';
import type { GuildChannelsTable } from '../storage/guildSchema.ts';
import type { Store } from '../storage/Store.ts';
import { MessageErrors as E } from './messageErrors.ts';
import { checkComponents, skuUsable } from './components.ts';
import { contentExempt, messageWire, userIdsOf, withoutContent } from './messageWire.ts';
import { attachmentSizeLimitFor } from './attachmentLimits.ts';
import { ATTACHMENT_IS_SPOILER, UrlSigner, attachmentPath, cleanFilename, type AttachmentStore, type StoredAttachment } from './attachments.ts';
import { attachmentStoreFor } from './attachmentStoreFor.ts';
import { ApiError } from '../errors/ApiError.ts';
import { checkEmbedTotal } from './embeds.ts';
import { searchServiceFor } from './search/SearchService.ts';
import { autoModFor } from '../moderation/AutoModService.ts';
import { AuditAction, auditLogFor } from '../moderation/AuditLog.ts';
import { channelMessageChanged } from './channelMessageHooks.ts';
import { privateChannelsFor, type PrivateChannels } from './privateChannels.ts';
import { checkPoll } from './polls.ts';
import { pollCounts } from './pollVoteCounts.ts';
import { FieldErrors } from '../applications/formErrors.ts';
import { appReadsMessageContent } from './appReadsMessageContent.ts';
import { MessageBulkDelete } from './messageBulkDelete.ts';
import { MessagePins } from './messagePins.ts';
import { MessageReactions } from './messageReactions.ts';
import type { CreateMessageBody, EditMessageBody, MessageCaller, MessageHost, MessageServiceOptions, UploadedFile } from './messageTypes.ts';

export type { CreateMessageBody, EditMessageBody, MessageCaller, MessageServiceOptions, UploadedFile };

const TEXT_CHANNEL_TYPES = new Set([0, 1, 2, 3, 5]);
const MessageType = { Default: 0, Reply: 19 } as const;
const ANNOUNCEMENT_CHANNEL = 5;
const Flag = { Crossposted: 1 << 0, SuppressEmbeds: 1 << 2, HasSnapshot: 1 << 14, IsComponentsV2: 1 << 15, SuppressNotifications: 1 << 12 } as const;
/** Flags a sender may set on create / edit (the rest are the server's). */
const CREATE_FLAGS = Flag.SuppressEmbeds | Flag.SuppressNotifications | Flag.IsComponentsV2;
/**
 * Whether a sender may set `flags`: only CREATE_FLAGS bits. Bitwise operators read 32 bits, so a
 * value past them (2^32 + 4) is refused by size first, never truncated to the bits it passes.
 */
function settableFlags(flags: number): boolean {
  return Number.isInteger(flags) && flags >= 0 && flags <= 0x7fffffff && (flags & ~CREATE_FLAGS) === 0;
}

/** "Within a few minutes" (spec, Create Message `enforce_nonce`). */
export const NONCE_WINDOW_MS = 5 * 60_000;

/** Thrown inside the create transaction to roll it back when an earlier message holds the nonce. */
class NonceTaken {
  constructor(readonly messageId: string) {}
}

/**
 * Messages in guild text channels: create (replies, forwards, nonces, slowmode), read, edit,
 * delete, bulk delete, reactions, typing and pins. Every refusal is checked before anything is
 * written; events go through the guild dispatch (GuildEvents) to members who can view the channel.
 */
export class MessageService {
  readonly repo: ChannelMessageRepo;
  private readonly events: Pick<GuildEvents, 'publish'>;
  /** DMs and group DMs: stand-in rows and views so the code below runs in them unchanged. */
  readonly privates: PrivateChannels;

  readonly files: AttachmentStore | null;
  private readonly signer: UrlSigner | null;
  private readonly bulk: MessageBulkDelete;
  private readonly reactionsOf: MessageReactions;
  private readonly pinsOf: MessagePins;

  constructor(private readonly store: Store, bus: EventBus, private readonly options: MessageServiceOptions = {}) {
    this.repo = channelMessageRepo(store.database.db, store.ids);
    this.privates = privateChannelsFor(store, bus);
    this.events = this.privates.publisher(guildServicesFor(store, bus).events);
    this.files = options.dataDir ? attachmentStoreFor({ dataDir: options.dataDir }) : null;
    this.signer = options.dataDir ? new UrlSigner(options.dataDir) : null;
    const host: MessageHost = {
      store,
      repo: this.repo,
      events: this.events,
      access: (caller, channelId, opts) => this.access(caller, channelId, opts),
      message: (channelId, messageId) => this.message(channelId, messageId),
      wire: (row, caller) => this.wire(row, caller),
      wires: (rows, caller) => this.wires(rows, caller),
      publishMessage: (t, channel, wire, view) => this.publishMessage(t, channel, wire, view),
      dropAttachments: (rows) => this.dropAttachments(rows),
    };
    this.bulk = new MessageBulkDelete(host);
    this.reactionsOf = new MessageReactions(host);
    this.pinsOf = new MessagePins(host);
  }

  /** Checks a CDN request's signature (`ex`, `is`, `hm`) and returns the bytes, or undefined. */
  async attachmentBytes(channelId: string, attachmentId: string, q: { ex?: string; is?: string; hm?: string }): Promise<Buffer | undefined> {
    if (!this.signer || !this.files || !/^\d{1,20}$/.test(channelId) || !/^\d{1,20}$/.test(attachmentId)) return undefined;
    if (!this.signer.verify(`/attachments/${channelId}/${attachmentId}`, q)) return undefined;
    return this.files.get(`${channelId}/${attachmentId}`);
  }

  /** Stored attachments to the public Attachment objects, with expiring signed URLs. */
  private attachmentWires(channelId: string, stored: StoredAttachment[]): unknown[] {
    const origin = this.options.publicUrl?.() ?? '';
    return stored.map((a) => {
      const signed = this.signer ? this.signer.sign(`/attachments/${channelId}/${a.id}`) : '';
      const query = signed.slice(signed.indexOf('?'));
      const url = `${origin}${attachmentPath(channelId, a)}${query}`;
      return { ...a, url, proxy_url: url };
    });
  }

  // ---- access --------------------------------------------------------------------------------

  /** The channel as the caller sees it (also PollVotes'). */
  async access(caller: MessageCaller, channelId: string, opts: { send?: boolean } = {}): Promise<{ view: GuildView; channel: GuildChannelsTable; perms: bigint }> {
    // Whether a DM takes new messages (blocks, friends, shared guilds) is only worked out for
    // sending; a third-party application's Bearer token gets no private channel (50001).
    const dm = await this.privates.access(caller.userId, channelId, { send: opts.send === true, caller });
    if (dm) return dm;
    const { view, channel } = await viewChannel(this.store, channelId, caller.userId);
    return { view, channel, perms: view.channelPermissions(channel) };
  }

  /** Whether the caller's app may read message content without being its author or mentioned (MESSAGE_CONTENT). */
  private async readsAllContent(caller: MessageCaller): Promise<boolean> {
    if (!caller.bot) return true;
    return appReadsMessageContent(this.store, caller.applicationId);
  }

  /** Rows to wire messages as `viewer` sees them (reactions' `me`, the content rule for bots). */
  async wires(rows: ChannelMessagesTable[], caller: MessageCaller): Promise<APIMessage[]> {
    const refIds = rows.filter((r) => r.type === MessageType.Reply && r.message_reference).map((r) => (JSON.parse(r.message_reference!) as APIMessageReference).message_id!);
    const referenced = new Map((refIds.length > 0 ? await this.repo.many(rows[0]!.channel_id, refIds) : []).map((r) => [r.id, r]));
    const users = await this.store.users.getMany(userIdsOf([...rows, ...referenced.values()]));
    const reactions = await this.repo.reactionCounts(rows.map((r) => r.id), caller.userId);
    const full = await this.readsAllContent(caller);
    // Poll results: the votes counted, `me_voted` for the caller.
    const polled = rows.filter((r) => r.poll).map((r) => r.id);
    const votes = polled.length > 0 ? await pollCounts(this.store.database.db, polled, caller.userId) : undefined;
    return rows.map((r) => {
      const m = messageWire(r, { users, reactions, referenced }) as APIMessage & { attachments: unknown[] };
      const poll = (m as { poll?: { results: { answer_counts: unknown[] } } }).poll;
      if (poll && votes) poll.results.answer_counts = votes.get(r.id) ?? [];
      m.attachments = this.attachmentWires(r.channel_id, JSON.parse(r.attachments) as StoredAttachment[]) as never;
      // DMs are exempt from the MESSAGE_CONTENT rule (public rule): their rows have no guild.
      return full || r.guild_id === null || contentExempt(m, caller.userId) ? m : withoutContent(m as never);
    });
  }

  private async wire(row: ChannelMessagesTable, caller: MessageCaller): Promise<APIMessage> {
    return (await this.wires([row], caller))[0]!;
  }

  private async message(channelId: string, messageId: string): Promise<ChannelMessagesTable> {
    const row = await this.repo.inChannel(channelId, messageId);
    if (!row) throw E.unknownMessage();
    return row;
  }

  // ---- create --------------------------------------------------------------------------------

  /**
   * Whether the caller may post files in the channel at all: checked before a multipart body is
   * read, so someone who cannot post there never has their uploads buffered. create() checks it
   * all again with the body.
   */
  /** Refuses before an upload is read; answers the caller's size limit per file there. */
  async mayUpload(caller: MessageCaller, channelId: string): Promise<number> {
    const { perms, channel } = await this.postable(caller, channelId);
    if (!has(perms, Permission.AttachFiles)) throw E.missingPermissions();
    return attachmentSizeLimitFor(this.store, { guildId: channel.guild_id, userId: caller.userId });
  }

  /** The channel the caller may post in: a text channel where they hold SEND_MESSAGES. */
  private async postable(caller: MessageCaller, channelId: string): Promise<Awaited<ReturnType<MessageService['access']>>> {
    const found = await this.access(caller, channelId, { send: true });
    if (!TEXT_CHANNEL_TYPES.has(found.channel.type)) throw E.notText();
    if (!has(found.perms, Permission.SendMessages)) throw this.privates.of(found.channel) ? new ApiError(403, 50007, 'Cannot send messages to this user') : E.missingPermissions();
    return found;
  }

  async create(caller: MessageCaller, channelId: string, body: CreateMessageBody, uploads: UploadedFile[] = []): Promise<APIMessage> {
    const { view, channel, perms } = await this.postable(caller, channelId);

    const ref = body.message_reference;
    const forwarding = ref?.type === 1;
    const content = body.content ?? '';
    const embeds = body.embeds ?? [];
    const components = body.components ?? [];
    const pollErrors = new FieldErrors();
    const poll = checkPoll(body.poll, pollErrors, []);
    pollErrors.throwIfAny();
    // SEND_POLLS in guild channels; a DM's participants may always send one (as publicly).
    if (poll && channel.guild_id !== null && !has(perms, Permission.SendPolls)) throw E.missingPermissions();
    if (uploads.length > 0 && !has(perms, Permission.AttachFiles)) throw E.missingPermissions();
    if (uploads.length > 0 && !this.files) throw new ApiError(400, 50035, 'Attachments are not configured on this server');
    const sizeLimit = uploads.length > 0 ? await attachmentSizeLimitFor(this.store, { guildId: channel.guild_id, userId: caller.userId }) : 0;
    for (const f of uploads) if (f.size > sizeLimit) throw new ApiError(413, 40005, 'Request entity too large');
    if (forwarding) {
      // A forward is the snapshot alone: nothing of its own beside the reference.
      if (content !== '' || embeds.length > 0 || components.length > 0 || uploads.length > 0 || poll) throw E.invalidForm(['content'], 'BASE_TYPE_BAD_LENGTH', 'A forwarded message cannot have content, embeds or components.');
    } else if (content.trim() === '' && embeds.length === 0 && components.length === 0 && uploads.length === 0 && !poll) {
      throw E.emptyMessage();
    }
    // files[n] pairs with attachments[{id: n}] (filename, description, is_spoiler); SPOILER_ still marks a spoiler.
    const attachments: StoredAttachment[] = uploads.map((f) => {
      const meta = body.attachments?.find((a) => String(a.id) === String(f.index));
      const filename = cleanFilename(meta?.filename ?? f.filename);
      const spoiler = meta?.is_spoiler === true || filename.startsWith('SPOILER_');
      return {
        id: this.store.ids.next(),
        filename,
        ...(meta?.description ? { description: meta.description } : {}),
        content_type: f.contentType,
        size: f.size,
        ...(spoiler ? { flags: ATTACHMENT_IS_SPOILER } : {}),
      };
    });
    if (body.enforce_nonce && body.nonce === undefined) throw E.invalidForm(['nonce'], 'BASE_TYPE_REQUIRED', 'This field is required when enforce_nonce is true.');
    checkEmbedTotal(embeds);
    const flags = body.flags ?? 0;
    if (!settableFlags(flags)) throw E.invalidForm(['flags'], 'MESSAGE_FLAGS_INVALID', 'Invalid message flags.');
    await this.checkComponents(caller, components, flags, content, embeds);
    // AutoMod (issue 11): a blocked message answers 400 / 200000 before anything is written.
    if (channel.guild_id !== null) await autoModFor(this.store).check(view, channel, content);

    // Slowmode (rate_limit_per_user): BYPASS_SLOWMODE alone lifts it since the 2026 split.
    if (channel.rate_limit_per_user > 0 && !mayDo(perms, 'bypassSlowmode')) {
      const last = await this.repo.lastByAuthor(channel.id, caller.userId);
      const wait = last === undefined ? 0 : last + channel.rate_limit_per_user * 1000 - Date.now();
      if (wait > 0) throw E.slowmode(Math.ceil(wait / 100) / 10);
    }

    let reference: APIMessageReference | null = null;
    let snapshots: unknown[] | null = null;
    let type: number = MessageType.Default;
    let repliedAuthor: string | undefined;
    if (ref && !forwarding) {
      if (ref.type !== undefined && ref.type !== 0) throw E.invalidForm(['message_reference', 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of (0, 1).');
      if (!ref.message_id) throw E.invalidForm(['message_reference', 'message_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
      if (!has(perms, Permission.ReadMessageHistory)) throw E.replyWithoutHistory();
      if (ref.channel_id !== undefined && ref.channel_id !== channel.id) throw E.invalidForm(['message_reference', 'channel_id'], 'REPLIES_CANNOT_REPLY_ACROSS_CHANNELS', 'Cannot reply to a message in another channel.');
      const target = await this.repo.inChannel(channel.id, ref.message_id);
      if (target) {
        reference = { type: 0, message_id: target.id, channel_id: channel.id, ...(channel.guild_id ? { guild_id: channel.guild_id } : {}) } as APIMessageReference;
        type = MessageType.Reply;
        repliedAuthor = target.author_id;
      } else if (ref.fail_if_not_exists !== false) {
        throw E.invalidForm(['message_reference', 'message_id'], 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message');
      }
    } else if (forwarding) {
      if (!ref!.message_id || !ref!.channel_id) throw E.invalidForm(['message_reference', ref!.message_id ? 'channel_id' : 'message_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
      const source = await this.forwardSource(caller, ref!.channel_id, ref!.message_id);
      reference = { type: 1, message_id: source.id, channel_id: source.channel_id, ...(source.guild_id ? { guild_id: source.guild_id } : {}) } as APIMessageReference;
      snapshots = [{ message: await this.snapshot(source) }];
    }

    const mentions = await this.mentions(view, perms, content, body.allowed_mentions, repliedAuthor);
    const nonce = body.nonce === undefined ? null : String(body.nonce);
    const fields = {
      channel_id: channel.id,
      guild_id: channel.guild_id,
      author_id: caller.userId,
      application_id: caller.bot ? caller.applicationId : null,
      type,
      content,
      flags: flags | (forwarding ? Flag.HasSnapshot : 0),
      tts: body.tts && has(perms, Permission.SendTTSMessages) ? 1 : 0,
      nonce,
      mention_everyone: mentions.everyone ? 1 : 0,
      mentions: mentions.users,
      mention_roles: mentions.roles,
      embeds,
      components,
      attachments,
      message_reference: reference ? JSON.stringify(reference) : null,
      message_snapshots: snapshots ? JSON.stringify(snapshots) : null,
      interaction_metadata: null,
      poll: poll ? JSON.stringify(poll) : null,
    };

    // The bytes first: a message never names a file that is not there. A failed insert removes them.
    for (const [i, a] of attachments.entries()) await this.files!.putFile(`${channel.id}/${a.id}`, uploads[i]!.path);
    const dropFiles = () => Promise.all(attachments.map((a) => this.files!.delete(`${channel.id}/${a.id}`)));
    let row: ChannelMessagesTable | undefined;
    for (let attempt = 0; attempt < 3 && !row; attempt++) {
      try {
        row = await this.repo.transaction(async (tx) => {
          const now = Date.now();
          const created = await this.repo.insert(tx, fields, now);
          if (body.enforce_nonce && nonce !== null) {
            const earlier = await this.repo.claimNonce(tx, caller.userId, nonce, created.id, now, NONCE_WINDOW_MS);
            // The earlier message still exists: roll this one back and answer with it.
            if (earlier !== null && (await this.repo.get(earlier, tx))) throw new NonceTaken(earlier);
            if (earlier !== null) await this.repo.replaceNonce(tx, caller.userId, nonce, created.id, now);
          }
          // The search index moves with the message (issue 11, search).
          await searchServiceFor(this.store).indexed(tx, created);
          return created;
        });
      } catch (e) {
        if (e instanceof NonceTaken) {
          await dropFiles();
          return this.wire((await this.repo.get(e.messageId))!, caller);
        }
        // Two sends with one nonce at once: the loser's insert of the claim fails; the retry finds the winner.
        if (!(body.enforce_nonce && attempt < 2)) {
          await dropFiles();
          throw e;
        }
      }
    }
    const wire = await this.wire(row!, { ...caller, bot: false });
    await this.publishMessage('MESSAGE_CREATE', channel, wire, view);
    await channelMessageChanged(this.store, { kind: 'create', row: row! });
    return caller.bot && channel.guild_id !== null && !(await this.readsAllContent(caller)) && !contentExempt(wire, caller.userId) ? withoutContent(wire as never) : wire;
  }

  /** The message to forward, if the caller can read it: 10008 when unknown, 160014 when its content is unreadable. */
  private async forwardSource(caller: MessageCaller, channelId: string, messageId: string): Promise<ChannelMessagesTable> {
    const source = /^\d{1,20}$/.test(channelId) ? await this.repo.inChannel(channelId, messageId) : undefined;
    if (!source) throw E.unknownMessage();
    const readable = await this.access(caller, channelId).then(
      ({ perms }) => has(perms, Permission.ViewChannel | Permission.ReadMessageHistory),
      () => false,
    );
    if (!readable) throw E.forwardUnreadable();
    // A DM's content is readable without the intent (public rule), so it may be forwarded too.
    if (source.guild_id !== null && !(await this.readsAllContent(caller))) {
      const mentioned = (JSON.parse(source.mentions) as string[]).includes(caller.userId);
      if (source.author_id !== caller.userId && !mentioned) throw E.forwardUnreadable();
    }
    return source;
  }

  /** The minimal message of a forward's snapshot: no author, no guild, no IDs (public shape). */
  private async snapshot(m: ChannelMessagesTable): Promise<Record<string, unknown>> {
    const users = await this.store.users.getMany(JSON.parse(m.mentions) as string[]);
    const w = messageWire(m, { users });
    return {
      type: m.type === MessageType.Reply ? MessageType.Default : m.type,
      content: w.content,
      embeds: w.embeds,
      attachments: w.attachments,
      timestamp: w.timestamp,
      edited_timestamp: w.edited_timestamp,
      flags: (w.flags ?? 0) & ~Flag.HasSnapshot,
      mentions: w.mentions,
      mention_roles: w.mention_roles,
      components: w.components,
    };
  }

  /**
   * `<@id>` of members, `<@&id>` of the guild's roles, @everyone/@here with MENTION_EVERYONE,
   * narrowed by `allowed_mentions`, plus the replied-to author unless `replied_user` is false.
   */
  private async mentions(view: GuildView, perms: bigint, content: string, allowed: CreateMessageBody['allowed_mentions'], repliedAuthor?: string): Promise<{ users: string[]; roles: string[]; everyone: boolean }> {
    const parse = allowed?.parse;
    const userIds = [...new Set([...content.matchAll(/<@!?(\d{1,20})>/g)].map((m) => m[1]!))].slice(0, 100);
    const roleIds = [...new Set([...content.matchAll(/<@&(\d{1,20})>/g)].map((m) => m[1]!))];
    const allowUser = (id: string) => !allowed || (parse?.includes('users') ?? false) || (allowed.users ?? []).includes(id);
    const allowRole = (id: string) => !allowed || (parse?.includes('roles') ?? false) || (allowed.roles ?? []).includes(id);
    const dm = this.privates.of(view);
    const members = userIds.length > 0 && !dm ? await this.store.guildMembers.list(view.guild.id, { userIds, limit: 100 }) : [];
    // In a DM, the participants are who can be mentioned.
    const users = (dm ? userIds.filter((id) => dm.userIds.includes(id)) : members.map((m) => m.member.user_id)).filter(allowUser);
    if (repliedAuthor && allowed?.replied_user !== false && !users.includes(repliedAuthor)) users.push(repliedAuthor);
    const guildRoles = new Set(view.roles.map((r) => r.id));
    const roles = roleIds.filter((id) => guildRoles.has(id) && id !== view.guild.id).filter(allowRole);
    const everyone = /@(everyone|here)/.test(content) && has(perms, Permission.MentionEveryone) && (!allowed || (parse?.includes('everyone') ?? false));
    return { users, roles, everyone };
  }

  /** MESSAGE_CREATE/UPDATE with `guild_id` and the author's `member`, to members who can view the channel. */
  private async publishMessage(t: string, channel: GuildChannelsTable, wire: APIMessage, view?: GuildView): Promise<void> {
    const authorMember = view && view.userId === wire.author.id ? view.member : await this.store.guildMembers.get(channel.guild_id, wire.author.id);
    const { reactions: _r, ...rest } = wire as APIMessage & { reactions?: unknown };
    const payload = { ...rest, guild_id: channel.guild_id, ...(authorMember ? { member: stripUser(memberWire(authorMember)) } : {}) };
    await this.events.publish(channel.guild_id, t, payload, { kind: 'channel', channel });
  }

  /**
   * The public component rules (components.ts); with IS_COMPONENTS_V2 the components are the
   * whole message (no content, no embeds); premium buttons only from an app, naming one of its
   * available SKUs.
   */
  private async checkComponents(caller: MessageCaller, components: unknown[], flags: number, content: string, embeds: unknown[]): Promise<void> {
    const { skus } = checkComponents(components, flags);
    if ((flags & Flag.IsComponentsV2) !== 0) {
      if (content !== '') throw E.invalidForm(['content'], 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2', 'The content field cannot be used when using MessageFlags.IS_COMPONENTS_V2');
      if (embeds.length > 0) throw E.invalidForm(['embeds'], 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2', 'The embeds field cannot be used when using MessageFlags.IS_COMPONENTS_V2');
    }
    for (const s of skus) {
      const sku = await this.store.skus.get(s.id);
      if (!skuUsable(sku, caller.bot ? caller.applicationId : null)) throw E.invalidForm(s.path, 'COMPONENT_INVALID_SKU', 'A premium button must name an available SKU of this application.');
    }
  }

  // ---- read ----------------------------------------------------------------------------------

  async get(caller: MessageCaller, channelId: string, messageId: string): Promise<APIMessage> {
    const { perms } = await this.access(caller, channelId);
    if (!has(perms, Permission.ReadMessageHistory)) throw E.missingPermissions();
    return this.wire(await this.message(channelId, messageId), caller);
  }

  async list(caller: MessageCaller, channelId: string, q: { before?: string; after?: string; around?: string; limit?: number }): Promise<APIMessage[]> {
    const { perms } = await this.access(caller, channelId);
    // Without READ_MESSAGE_HISTORY the history is empty (public behaviour), not an error.
    if (!has(perms, Permission.ReadMessageHistory)) return [];
    const rows = await this.repo.page(channelId, { ...q, limit: q.limit ?? 50 });
    return rows.length === 0 ? [] : this.wires(rows, caller);
  }

  // ---- edit and delete -----------------------------------------------------------------------

  async edit(caller: MessageCaller, channelId: string, messageId: string, body: EditMessageBody): Promise<APIMessage> {
    const { view, channel, perms } = await this.access(caller, channelId);
    const row = await this.message(channelId, messageId);
    if (row.author_id !== caller.userId) throw E.editOthers();
    const set: Parameters<ChannelMessageRepo['update']>[2] = {};
    if (body.content !== undefined) set.content = body.content ?? '';
    if (body.embeds !== undefined) {
      checkEmbedTotal(body.embeds ?? []);
      set.embeds = JSON.stringify(body.embeds ?? []);
    }
    const flags = body.flags === undefined || body.flags === null ? row.flags : body.flags;
    if (body.flags !== undefined && body.flags !== null) {
      if (!settableFlags(body.flags)) throw E.invalidForm(['flags'], 'MESSAGE_FLAGS_INVALID', 'Invalid message flags.');
      // IS_COMPONENTS_V2 cannot be taken off once set (public rule); server-owned bits stay.
      if ((row.flags & Flag.IsComponentsV2) !== 0 && (body.flags & Flag.IsComponentsV2) === 0) throw E.invalidForm(['flags'], 'MESSAGE_CANNOT_REMOVE_COMPONENTS_V2', 'The IS_COMPONENTS_V2 flag cannot be removed.');
      set.flags = (row.flags & ~CREATE_FLAGS) | body.flags;
    }
    if (body.components !== undefined) {
      await this.checkComponents(caller, body.components ?? [], flags, body.content ?? row.content, body.embeds ?? (JSON.parse(row.embeds) as APIEmbed[]));
      set.components = JSON.stringify(body.components ?? []);
    }
    let removedFiles: StoredAttachment[] = [];
    if (body.attachments !== undefined) {
      const existing = JSON.parse(row.attachments) as StoredAttachment[];
      const keep: StoredAttachment[] = [];
      for (const [i, a] of (body.attachments ?? []).entries()) {
        const old = existing.find((x) => x.id === String(a.id));
        if (!old) throw E.invalidForm(['attachments', String(i), 'id'], 'ATTACHMENT_NOT_FOUND', 'Unknown attachment (new files on edit are not supported yet)');
        const spoiler = a.is_spoiler === undefined ? (old.flags ?? 0) & ATTACHMENT_IS_SPOILER : a.is_spoiler ? ATTACHMENT_IS_SPOILER : 0;
        const { description: _d, flags: _f, ...rest } = old;
        const description = a.description === undefined ? old.description : a.description;
        const flags = ((old.flags ?? 0) & ~ATTACHMENT_IS_SPOILER) | spoiler;
        keep.push({ ...rest, ...(description ? { description } : {}), ...(flags ? { flags } : {}) });
      }
      removedFiles = existing.filter((x) => !keep.some((k) => k.id === x.id));
      set.attachments = JSON.stringify(keep);
    }
    const content = set.content ?? row.content;
    const embeds = set.embeds !== undefined ? (JSON.parse(set.embeds) as unknown[]) : (JSON.parse(row.embeds) as unknown[]);
    const comps = set.components !== undefined ? (JSON.parse(set.components) as unknown[]) : (JSON.parse(row.components) as unknown[]);
    const atts = JSON.parse(set.attachments ?? row.attachments) as unknown[];
    if (content.trim() === '' && embeds.length === 0 && comps.length === 0 && row.message_snapshots === null && atts.length === 0) throw E.emptyMessage();
    if (set.content !== undefined) {
      const m = await this.mentions(view, perms, content, body.allowed_mentions ?? undefined);
      set.mentions = JSON.stringify(m.users);
      set.mention_roles = JSON.stringify(m.roles);
      set.mention_everyone = m.everyone ? 1 : 0;
    }
    if (set.content !== undefined && channel.guild_id !== null) await autoModFor(this.store).check(view, channel, content);
    set.edited_at = Date.now();
    await this.repo.transaction(async (tx) => {
      await this.repo.update(tx, row.id, set);
      await searchServiceFor(this.store).indexed(tx, { ...row, ...set } as ChannelMessagesTable);
    });
    for (const a of removedFiles) await this.files?.delete(`${channel.id}/${a.id}`);
    const updated = (await this.repo.get(row.id))!;
    const wire = await this.wire(updated, { ...caller, bot: false });
    await this.publishMessage('MESSAGE_UPDATE', channel, wire, view);
    await channelMessageChanged(this.store, { kind: 'update', row: updated });
    return (await this.wires([updated], caller))[0]!;
  }

  /** MESSAGE_UPDATE of a changed row (End Poll), answering it as the caller sees it. */
  async republish(caller: MessageCaller, messageId: string): Promise<APIMessage> {
    const row = (await this.repo.get(messageId))!;
    const { view, channel } = await this.access(caller, row.channel_id);
    await this.publishMessage('MESSAGE_UPDATE', channel, await this.wire(row, { ...caller, bot: false }), view);
    await channelMessageChanged(this.store, { kind: 'update', row });
    return this.wire(row, caller);
  }

  /** Own messages, or anyone's with MANAGE_MESSAGES. */
  async delete(caller: MessageCaller, channelId: string, messageId: string): Promise<void> {
    const { channel, perms } = await this.access(caller, channelId);
    const row = await this.message(channelId, messageId);
    if (row.author_id !== caller.userId && !mayDo(perms, 'deleteOthersMessage')) throw E.missingPermissions();
    await this.repo.transaction(async (tx) => {
      await this.repo.delete(tx, [row.id]);
      await searchServiceFor(this.store).removed(tx, [row.id]);
    });
    await this.dropAttachments([row]);
    // Deleting someone else's message is audited (MESSAGE_DELETE 72, target the author).
    if (row.author_id !== caller.userId && channel.guild_id !== null) {
      await auditLogFor(this.store).record({ guildId: channel.guild_id, userId: caller.userId, reason: caller.auditReason ?? null, actionType: AuditAction.MessageDelete, targetId: row.author_id, options: { channel_id: channel.id, count: '1' } });
    }
    await this.events.publish(channel.guild_id, 'MESSAGE_DELETE', { id: row.id, channel_id: channel.id, guild_id: channel.guild_id }, { kind: 'channel', channel });
    await channelMessageChanged(this.store, { kind: 'delete', channelId: channel.id, ids: [row.id] });
  }

  /**
   * Crosspost Message: publishes a message of an announcement channel (type 5), its own author's
   * with SEND_MESSAGES, anyone's with MANAGE_MESSAGES. The message gets the CROSSPOSTED flag and a
   * MESSAGE_UPDATE. Channel following is not built here (no Follow Announcement Channel), so no
   * other channel receives a copy: publishing only marks the message.
   */
  async crosspost(caller: MessageCaller, channelId: string, messageId: string): Promise<APIMessage> {
    const { view, channel, perms } = await this.access(caller, channelId);
    const row = await this.message(channelId, messageId);
    if (channel.type !== ANNOUNCEMENT_CHANNEL) throw E.wrongChannelType();
    if (!has(perms, row.author_id === caller.userId ? Permission.SendMessages : Permission.ManageMessages)) throw E.missingPermissions();
    if ((row.flags & Flag.Crossposted) !== 0) throw E.alreadyCrossposted();
    await this.repo.update(this.store.database.db, row.id, { flags: row.flags | Flag.Crossposted });
    const updated = (await this.repo.get(row.id))!;
    await this.publishMessage('MESSAGE_UPDATE', channel, await this.wire(updated, { ...caller, bot: false }), view.userId === row.author_id ? view : undefined);
    await channelMessageChanged(this.store, { kind: 'update', row: updated });
    return this.wire(updated, caller);
  }

  private async dropAttachments(rows: ChannelMessagesTable[]): Promise<void> {
    for (const r of rows) for (const a of JSON.parse(r.attachments) as StoredAttachment[]) await this.files?.delete(`${r.channel_id}/${a.id}`);
  }

  // ---- bulk deletes (messageBulkDelete.ts), reactions (messageReactions.ts), pins (messagePins.ts) ----

  bulkDelete(caller: MessageCaller, channelId: string, ids: string[]): Promise<void> {
    return this.bulk.bulkDelete(caller, channelId, ids);
  }

  deleteRecentByAuthors(guildId: string, authorIds: string[], seconds: number): Promise<void> {
    return this.bulk.deleteRecentByAuthors(guildId, authorIds, seconds);
  }

  addReaction(caller: MessageCaller, channelId: string, messageId: string, rawEmoji: string): Promise<void> {
    return this.reactionsOf.addReaction(caller, channelId, messageId, rawEmoji);
  }

  removeReaction(caller: MessageCaller, channelId: string, messageId: string, rawEmoji: string, userId: string): Promise<void> {
    return this.reactionsOf.removeReaction(caller, channelId, messageId, rawEmoji, userId);
  }

  removeAllReactions(caller: MessageCaller, channelId: string, messageId: string, rawEmoji?: string): Promise<void> {
    return this.reactionsOf.removeAllReactions(caller, channelId, messageId, rawEmoji);
  }

  reactions(caller: MessageCaller, channelId: string, messageId: string, rawEmoji: string, q: { after?: string; limit?: number; type?: number }): Promise<unknown[]> {
    return this.reactionsOf.reactions(caller, channelId, messageId, rawEmoji, q);
  }

  pins(caller: MessageCaller, channelId: string, q: { before?: string; limit?: number }): Promise<{ items: { pinned_at: string; message: APIMessage }[]; has_more: boolean }> {
    return this.pinsOf.pins(caller, channelId, q);
  }

  pinsLegacy(caller: MessageCaller, channelId: string): Promise<APIMessage[]> {
    return this.pinsOf.pinsLegacy(caller, channelId);
  }

  setPinned(caller: MessageCaller, channelId: string, messageId: string, pinned: boolean): Promise<void> {
    return this.pinsOf.setPinned(caller, channelId, messageId, pinned);
  }

  // ---- typing --------------------------------------------------------------------------------

  async typing(caller: MessageCaller, channelId: string): Promise<void> {
    const { view, channel, perms } = await this.access(caller, channelId, { send: true });
    if (!TEXT_CHANNEL_TYPES.has(channel.type)) throw E.notText();
    if (!has(perms, Permission.SendMessages)) throw E.missingPermissions();
    await this.events.publish(channel.guild_id, 'TYPING_START', {
      channel_id: channel.id, guild_id: channel.guild_id, user_id: caller.userId, timestamp: Math.floor(Date.now() / 1000), member: memberWire(view.member),
    }, { kind: 'channel', channel });
  }

}

function stripUser<T extends { user?: unknown }>(m: T): Omit<T, 'user'> {
  const { user: _u, ...rest } = m;
  return rest;
}

const byStore = new WeakMap<Store, MessageService>();

/** One service per store, shared by the routes (and by tests that seed messages). */
export function messageServiceFor(store: Store, bus: EventBus, options: MessageServiceOptions = {}): MessageService {
  let s = byStore.get(store);
  if (!s) byStore.set(store, (s = new MessageService(store, bus, options)));
  return s;
}
