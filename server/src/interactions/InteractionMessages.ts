import type { APIEmbed, APIMessage } from 'discord-api-types/v10';
import type { EventBus } from '../events/EventBus.ts';
import { FieldErrors } from '../applications/formErrors.ts';
import type { GuildEvents } from '../guilds/GuildEvents.ts';
import { guildUserTopic } from '../guilds/GuildEvents.ts';
import { guildServicesFor } from '../guilds/GuildServices.ts';
import { privateChannelsFor } from '../messages/privateChannels.ts';
import { memberWire, userWire } from '../guilds/guildWire.ts';
import { checkComponents } from '../messages/components.ts';
import { checkEmbedsAt } from '../messages/embeds.ts';
import { messageWire } from '../messages/messageWire.ts';
import { type ChannelMessageRepo, type ChannelMessagesTable, channelMessageRepo } from '../storage/ChannelMessageRepo.ts';
import type { InteractionRepo } from '../storage/InteractionRepo.ts';
import type { InteractionMessagesTable, InteractionsTable } from '../storage/interactionSchema.ts';
import type { Store } from '../storage/Store.ts';
import type { Transaction } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { ApiError } from '../errors/ApiError.ts';
import { ATTACHMENT_IS_SPOILER, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, UrlSigner, attachmentPath, cleanFilename, type AttachmentStore, type StoredAttachment } from '../messages/attachments.ts';
import { attachmentStoreFor } from '../messages/attachmentStoreFor.ts';
import { InteractionErrors as E } from './interactionErrors.ts';
import { MessageFlag } from './interactionWire.ts';
import { checkPoll, pollWire, type StoredPoll } from '../messages/polls.ts';
import { searchServiceFor } from '../messages/search/SearchService.ts';
import { channelMessageChanged } from '../messages/channelMessageHooks.ts';

/** Flags a response or follow-up may carry. */
const MESSAGE_FLAGS = MessageFlag.SuppressEmbeds | MessageFlag.Ephemeral | MessageFlag.SuppressNotifications | MessageFlag.IsComponentsV2;

/** A response message checked and ready to write. */
export interface PreparedMessage {
  content: string;
  embeds: APIEmbed[];
  components: unknown[];
  flags: number;
  tts: boolean;
  poll: StoredPoll | null;
  /** Files of a multipart request (`files[n]`), paired with `attachments[{id: n}]`. */
  uploads?: Upload[];
  attachmentMeta?: { id: string | number; filename?: string; description?: string; is_spoiler?: boolean }[];
  /** `allowed_mentions` as sent (absent: mentions in the content count). */
  allowedMentions?: { parse?: string[]; users?: string[]; roles?: string[] };
}

type Obj = Record<string, unknown>;
/** One uploaded file of a multipart callback, follow-up or edit: `size` bytes in a temporary file at `path`, which the attachment store takes (putFile). */
export interface Upload { index: number; filename: string; contentType: string; size: number; path: string }
/** What a write needs read before its transaction. */
type Pre = { meta: Obj; interaction: Obj; users: Awaited<ReturnType<Store['users']['getMany']>>; mentions: { users: string[]; roles: string[] } };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a message body of a response, follow-up or edit (content, embeds, components with the
 * messages slice's rules, flags, poll). `partial`: an edit, where absent fields stay.
 */
export function prepareMessage(body: unknown, opts: { prefix: (string | number)[]; partial?: boolean; allowPoll: boolean; uploads?: Upload[] }): PreparedMessage & { given: Set<string> } {
  const errs = new FieldErrors();
  const b = isObj(body) ? body : {};
  const p = opts.prefix;
  const given = new Set(Object.keys(b).filter((k) => b[k] !== undefined));
  const content = b.content ?? '';
  if (typeof content !== 'string' || content.length > 2000) errs.add([...p, 'content'], 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
  // Create Message's embed rules, word for word (messages/embeds.ts).
  const embeds = b.embeds === undefined || b.embeds === null ? [] : checkEmbedsAt(p, b.embeds);
  const flags = b.flags ?? 0;
  if (typeof flags !== 'number' || !Number.isInteger(flags) || (flags & ~MESSAGE_FLAGS) !== 0) errs.add([...p, 'flags'], 'MESSAGE_FLAGS_INVALID', 'Invalid message flags.');
  const components = (b.components ?? []) as unknown[];
  if (!Array.isArray(components)) errs.add([...p, 'components'], 'BASE_TYPE_LIST', 'Must be a list.');
  const poll = checkPoll(b.poll, errs, p);
  if (b.poll !== undefined && b.poll !== null && !opts.allowPoll) errs.add([...p, 'poll'], 'POLL_EDIT_NOT_ALLOWED', 'A poll can be added only to a deferred interaction response, and not changed afterwards.');
  errs.throwIfAny();
  // The messages slice's component rules (50035 at `components.…`).
  if (Array.isArray(components) && components.length > 0) checkComponents(components, flags as number);
  const uploads = opts.uploads ?? [];
  if (uploads.length > MAX_ATTACHMENTS) throw new ApiError(400, 50035, 'Invalid Form Body', { files: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_ATTACHMENTS} or fewer in length.` }] } } as never);
  for (const u of uploads) if (u.size > MAX_ATTACHMENT_BYTES) throw new ApiError(413, 40005, 'Request entity too large');
  if (!opts.partial && (content as string).trim() === '' && embeds.length === 0 && components.length === 0 && !poll && uploads.length === 0) throw new ApiError(400, 50006, 'Cannot send an empty message');
  const allowed = isObj(b.allowed_mentions) ? (b.allowed_mentions as PreparedMessage['allowedMentions']) : undefined;
  const attachmentMeta = Array.isArray(b.attachments) ? (b.attachments as PreparedMessage['attachmentMeta']) : undefined;
  return { content: content as string, embeds, components, flags: flags as number, tts: b.tts === true, poll, given, ...(allowed ? { allowedMentions: allowed } : {}), ...(uploads.length ? { uploads } : {}), ...(attachmentMeta ? { attachmentMeta } : {}) };
}

/**
 * The messages interactions create: the original response and follow-ups. Non-ephemeral ones are
 * channel messages (channel_messages, MESSAGE_CREATE to who can view the channel); ephemeral ones
 * live only in interaction_messages and reach only the invoking user's sessions. Both carry
 * `interaction_metadata` (no `user_id`; the user object has the ID) and the application as `webhook_id`.
 */
export class InteractionMessages {
  readonly channelMessages: ChannelMessageRepo;
  private readonly events: GuildEvents;

  private readonly files: AttachmentStore | null;
  private readonly signer: UrlSigner | null;

  constructor(private readonly store: Store, private readonly bus: EventBus, private readonly repo: InteractionRepo, private readonly attachments: { dataDir?: string; publicUrl?: () => string } = {}) {
    this.channelMessages = channelMessageRepo(store.database.db, store.ids);
    this.events = guildServicesFor(store, bus).events;
    // The messages slice's attachment store and URL signing: files live where channel messages' do.
    this.files = attachments.dataDir ? attachmentStoreFor({ dataDir: attachments.dataDir }) : null;
    this.signer = attachments.dataDir ? new UrlSigner(attachments.dataDir) : null;
  }

  /** Writes uploaded files (before the row that names them) and returns their stored descriptions. */
  async storeUploads(channelId: string, m: PreparedMessage): Promise<StoredAttachment[]> {
    const uploads = m.uploads ?? [];
    if (uploads.length === 0) return [];
    if (!this.files) throw new ApiError(400, 50035, 'Attachments are not configured on this server');
    const out: StoredAttachment[] = [];
    for (const f of uploads) {
      const meta = m.attachmentMeta?.find((a) => String(a.id) === String(f.index));
      const filename = cleanFilename(meta?.filename ?? f.filename);
      const spoiler = meta?.is_spoiler === true || filename.startsWith('SPOILER_');
      const a: StoredAttachment = { id: this.store.ids.next(), filename, ...(meta?.description ? { description: meta.description } : {}), content_type: f.contentType, size: f.size, ...(spoiler ? { flags: ATTACHMENT_IS_SPOILER } : {}) };
      await this.files.putFile(`${channelId}/${a.id}`, f.path);
      out.push(a);
    }
    return out;
  }

  /** Stores files that belong to no message (a modal's File Upload) and returns their public Attachment objects. */
  async storeFiles(channelId: string, uploads: Upload[]): Promise<Obj[]> {
    const stored = await this.storeUploads(channelId, { content: '', embeds: [], components: [], flags: 0, tts: false, poll: null, uploads });
    return this.attachmentWires(channelId, stored) as Obj[];
  }

  /** Removes files written for a message that was not made. */
  async dropUploads(channelId: string, stored: StoredAttachment[]): Promise<void> {
    for (const a of stored) await this.files?.delete(`${channelId}/${a.id}`).catch(() => {});
  }

  /** Stored attachments to public Attachment objects with signed, expiring URLs (as channel messages have). */
  private attachmentWires(channelId: string, stored: StoredAttachment[]): unknown[] {
    const origin = this.attachments.publicUrl?.() ?? '';
    return stored.map((a) => {
      const signed = this.signer ? this.signer.sign(`/attachments/${channelId}/${a.id}`) : '';
      const url = `${origin}${attachmentPath(channelId, a)}${signed.slice(signed.indexOf('?'))}`;
      return { ...a, url, proxy_url: url };
    });
  }

  async metadata(row: InteractionsTable, extra: Obj = {}, depth = 0): Promise<Obj> {
    const user = await this.store.users.get(row.user_id);
    // A modal submit names the interaction that opened the modal (one level, as publicly).
    const opener = depth === 0 && row.triggering_id ? await this.repo.interaction(row.triggering_id) : undefined;
    // A context-menu command's target: the user (USER, 2) or the message's ID (MESSAGE, 3).
    const targetUser = row.command_type === 2 && row.target_id ? await this.store.users.get(row.target_id) : undefined;
    return {
      id: row.id,
      type: row.type,
      user: user ? userWire(user) : { id: row.user_id },
      authorizing_integration_owners: JSON.parse(row.authorizing),
      ...(opener?.original_message_id && opener.type === 2 ? { original_response_message_id: opener.original_message_id } : {}),
      ...(row.message_id ? { interacted_message_id: row.message_id } : {}),
      ...(targetUser ? { target_user: userWire(targetUser) } : {}),
      ...(row.command_type === 3 && row.target_id ? { target_message_id: row.target_id } : {}),
      ...(opener ? { triggering_interaction_metadata: await this.metadata(opener, {}, 1) } : {}),
      ...extra,
    };
  }

  /**
   * The deprecated MessageInteraction of a message an interaction made (public shape: id, type,
   * name, user, and in a guild the member without its user).
   */
  private async deprecatedInteraction(row: InteractionsTable): Promise<Obj> {
    const user = await this.store.users.get(row.user_id);
    const member = row.guild_id ? await this.store.guildMembers.get(row.guild_id, row.user_id) : undefined;
    let memberPart: Obj | undefined;
    if (member) {
      const { user: _u, ...m } = memberWire(member) as unknown as Obj;
      memberPart = m;
    }
    return { id: row.id, type: row.type, name: row.name ?? '', user: user ? userWire(user) : { id: row.user_id }, ...(memberPart ? { member: memberPart } : {}) };
  }

  /**
   * What a response or follow-up needs read before its transaction (SQLite has one connection:
   * a read outside the transaction while it is open would wait for it forever).
   */
  async before(row: InteractionsTable, botUserId: string, original: boolean, m?: PreparedMessage): Promise<Pre> {
    const mentions = m ? await this.mentions(row, m) : { users: [], roles: [] };
    return { meta: await this.metadata(row, original ? {} : { original_response_message_id: row.original_message_id }), interaction: await this.deprecatedInteraction(row), users: await this.store.users.getMany([botUserId, ...mentions.users]), mentions };
  }

  /**
   * `<@id>` of the guild's members (a DM's participants) and `<@&id>` of its roles, narrowed by
   * `allowed_mentions` as on Create Message. No @everyone from an interaction response (our choice).
   */
  private async mentions(row: InteractionsTable, m: Pick<PreparedMessage, 'content' | 'allowedMentions'>): Promise<{ users: string[]; roles: string[] }> {
    const allowed = m.allowedMentions;
    const userIds = [...new Set([...m.content.matchAll(/<@!?(\d{1,20})>/g)].map((x) => x[1]!))].slice(0, 100);
    const roleIds = [...new Set([...m.content.matchAll(/<@&(\d{1,20})>/g)].map((x) => x[1]!))].slice(0, 100);
    const allowUser = (id: string) => !allowed || (allowed.parse ?? []).includes('users') || (allowed.users ?? []).includes(id);
    const allowRole = (id: string) => !allowed || (allowed.parse ?? []).includes('roles') || (allowed.roles ?? []).includes(id);
    if (!row.guild_id) {
      const dm = row.channel_id ? await privateChannelsFor(this.store, this.bus).access(row.user_id, row.channel_id).catch(() => undefined) : undefined;
      const ch = dm ? privateChannelsFor(this.store, this.bus).of(dm.channel) : undefined;
      return { users: userIds.filter((id) => ch?.userIds.includes(id) && allowUser(id)), roles: [] };
    }
    const members = userIds.length > 0 ? await this.store.guildMembers.list(row.guild_id, { userIds, limit: 100 }) : [];
    const roles = roleIds.length > 0 ? new Set((await this.store.guilds.roles(row.guild_id)).map((r) => r.id)) : new Set<string>();
    return { users: members.map((x) => x.member.user_id).filter(allowUser), roles: roleIds.filter((id) => roles.has(id) && id !== row.guild_id).filter(allowRole) };
  }

  /** Writes a response or follow-up (inside `tx`, reading nothing), returning a publish step to run after commit. */
  async create(tx: Transaction<Database>, row: InteractionsTable, m: PreparedMessage, opts: { original: boolean; type: number; botUserId: string; loading?: boolean; pre: Pre; stored?: StoredAttachment[] }): Promise<{ id: string; publish: () => Promise<APIMessage> }> {
    const ephemeral = (m.flags & MessageFlag.Ephemeral) !== 0 || row.forced_ephemeral === 1;
    const flags = (m.flags & ~MessageFlag.Ephemeral) | (ephemeral ? MessageFlag.Ephemeral : 0) | (opts.loading ? MessageFlag.Loading : 0);
    const meta = opts.pre.meta;
    const fields = {
      channel_id: row.channel_id!,
      guild_id: row.guild_id,
      author_id: opts.botUserId,
      application_id: row.application_id,
      type: opts.type,
      content: m.content,
      flags,
      tts: m.tts ? 1 : 0,
      nonce: null,
      mention_everyone: 0,
      mentions: opts.pre.mentions.users,
      mention_roles: opts.pre.mentions.roles,
      embeds: m.embeds,
      components: m.components,
      attachments: (opts.stored ?? []) as unknown[],
      message_reference: null,
      message_snapshots: null,
      interaction_metadata: JSON.stringify(meta),
      interaction: JSON.stringify(opts.pre.interaction),
      poll: m.poll ? JSON.stringify(m.poll) : null,
    };
    const now = Date.now();
    let channelRow: ChannelMessagesTable;
    if (ephemeral) {
      channelRow = { ...fields, id: this.store.ids.next(now), mentions: JSON.stringify(fields.mentions), mention_roles: JSON.stringify(fields.mention_roles), embeds: JSON.stringify(m.embeds), components: JSON.stringify(m.components), attachments: JSON.stringify(opts.stored ?? []), pinned_at: null, edited_at: null, created_at: now };
    } else {
      channelRow = await this.channelMessages.insert(tx, fields, now);
      // Found by guild search like any channel message (MessageService does the same in its transaction).
      await searchServiceFor(this.store).indexed(tx, channelRow);
    }
    const wire = this.wireWith(channelRow, null, opts.pre.users);
    await this.repo.insertMessage(tx, {
      id: channelRow.id,
      interaction_id: row.id,
      application_id: row.application_id,
      channel_id: row.channel_id!,
      original: opts.original ? 1 : 0,
      ephemeral: ephemeral ? 1 : 0,
      message: ephemeral ? JSON.stringify(wire) : null,
      poll: m.poll ? JSON.stringify(m.poll) : null,
      created_at: now,
    });
    const created = channelRow;
    return {
      id: channelRow.id,
      publish: async () => {
        await this.publish(row, 'MESSAGE_CREATE', wire, ephemeral);
        // Linked channels mirror it (channelMessageHooks), as a message sent through MessageService.
        if (!ephemeral) await channelMessageChanged(this.store, { kind: 'create', row: created });
        return wire;
      },
    };
  }

  private async wire(r: ChannelMessagesTable, poll: string | null): Promise<APIMessage> {
    return this.wireWith(r, poll, await this.store.users.getMany([r.author_id]));
  }

  /** `poll`: interaction_messages' copy, for a row that has none of its own (written before migration 0019). */
  private wireWith(r: ChannelMessagesTable, poll: string | null, users: Awaited<ReturnType<Store['users']['getMany']>>): APIMessage {
    const w = messageWire(r, { users }) as unknown as Obj;
    w.attachments = this.attachmentWires(r.channel_id, JSON.parse(r.attachments) as StoredAttachment[]);
    w.webhook_id = r.application_id;
    if (!w.poll && poll) w.poll = pollWire(poll);
    return w as unknown as APIMessage;
  }

  /** MESSAGE_CREATE/UPDATE: ephemeral to the invoking user's sessions only; otherwise to who can view the channel. */
  private async publish(row: InteractionsTable, t: string, wire: APIMessage, ephemeral: boolean): Promise<void> {
    const payload: Obj = { ...(wire as unknown as Obj), ...(row.guild_id ? { guild_id: row.guild_id } : {}) };
    if (ephemeral) {
      // DM events carry the `|dm` qualifier (the session's DIRECT_MESSAGES intent decides).
      this.bus.publish(guildUserTopic(row.user_id), { t: row.guild_id ? t : `${t}|dm`, json: JSON.stringify(payload) });
      return;
    }
    if (!row.guild_id) return this.publishInDm(row, t, payload);
    const channel = await this.store.guilds.channel(row.channel_id!);
    if (!channel) return;
    const member = await this.store.guildMembers.get(channel.guild_id, (wire.author as { id: string }).id);
    if (member) {
      const { user: _u, ...m } = memberWire(member) as unknown as Obj;
      payload.member = m;
    }
    await this.events.publish(channel.guild_id, t, payload, { kind: 'channel', channel });
  }

  /** To a DM's or group DM's participants, through the messages slice's private-channel routing. */
  private async publishInDm(row: InteractionsTable, t: string, payload: Obj): Promise<void> {
    const pcs = privateChannelsFor(this.store, this.bus);
    const access = await pcs.access(row.user_id, row.channel_id!).catch(() => undefined);
    if (access) await pcs.publisher(this.events).publish('', t, payload, { kind: 'channel', channel: access.channel });
  }

  /** A message this interaction made (original or follow-up), as the public object. */
  async read(row: InteractionsTable, messageId: string): Promise<{ im: InteractionMessagesTable; wire: APIMessage }> {
    const im = /^\d{1,20}$/.test(messageId) ? await this.repo.message(messageId) : undefined;
    if (!im || im.interaction_id !== row.id) throw E.unknownMessage();
    if (im.ephemeral === 1) return { im, wire: JSON.parse(im.message!) as APIMessage };
    const r = await this.channelMessages.get(im.id);
    if (!r) throw E.unknownMessage();
    return { im, wire: await this.wire(r, im.poll) };
  }

  /** The message a component sits on (a channel message of this application, or an ephemeral one of this user). */
  async componentMessage(messageId: string): Promise<{ wire: APIMessage; applicationId: string | null; ephemeralFor: string | null; im?: InteractionMessagesTable }> {
    const im = await this.repo.message(messageId);
    if (im?.ephemeral === 1) {
      const owner = await this.repo.interaction(im.interaction_id);
      return { wire: JSON.parse(im.message!) as APIMessage, applicationId: im.application_id, ephemeralFor: owner?.user_id ?? null, im };
    }
    const r = await this.channelMessages.get(messageId);
    if (!r) throw E.unknownMessage();
    return { wire: await this.wire(r, im?.poll ?? null), applicationId: r.application_id, ephemeralFor: null, ...(im ? { im } : {}) };
  }

  /** Edits a message an interaction made (or the component's message, for UPDATE_MESSAGE). A deferred (loading) response stops loading. */
  async edit(row: InteractionsTable, messageId: string, body: unknown, prefix: (string | number)[] = [], uploads: Upload[] = []): Promise<APIMessage> {
    const current = await this.componentMessage(messageId);
    if (current.applicationId !== row.application_id) throw E.unknownMessage();
    const flagsNow = (current.wire.flags ?? 0) as number;
    const loading = (flagsNow & MessageFlag.Loading) !== 0;
    // A poll may join a deferred response's first edit (spec), never change after.
    const m = prepareMessage(body, { prefix, partial: true, allowPoll: loading && !(current.wire as unknown as Obj).poll, uploads });
    const flags = m.given.has('flags') ? (flagsNow & MessageFlag.Ephemeral) | (m.flags & ~MessageFlag.Ephemeral) : flagsNow & ~MessageFlag.Loading;
    // New content: its mentions are found again (as a channel message edit does), narrowed by the edit's allowed_mentions.
    const mentions = m.given.has('content') ? await this.mentions(row, m) : undefined;
    const mentionUsers = mentions ? await this.store.users.getMany(mentions.users) : undefined;
    const now = Date.now();
    const next: Obj = {
      ...(current.wire as unknown as Obj),
      ...(m.given.has('content') ? { content: m.content } : {}),
      ...(m.given.has('embeds') ? { embeds: m.embeds } : {}),
      ...(m.given.has('components') ? { components: m.components } : {}),
      ...(m.poll ? { poll: pollWire(m.poll) } : {}),
      ...(mentions ? { mentions: mentions.users.map((id) => mentionUsers!.get(id)).filter((u) => u !== undefined).map((u) => userWire(u)), mention_roles: mentions.roles } : {}),
      flags: flags & ~MessageFlag.Loading,
      edited_timestamp: loading ? null : new Date(now).toISOString(),
    };
    const attachmentsNow = ((next.attachments as unknown[]) ?? []).length + (m.uploads?.length ?? 0);
    if ((next.content as string).trim() === '' && (next.embeds as unknown[]).length === 0 && (next.components as unknown[]).length === 0 && !next.poll && attachmentsNow === 0) throw new ApiError(400, 50006, 'Cannot send an empty message');
    // New files on an edit are added to the message's attachments (editReply({files}) after a defer);
    // written only once the edit is accepted, so a refused edit leaves no file behind.
    const added = await this.storeUploads(current.wire.channel_id, m);
    if (added.length) next.attachments = [...((current.wire.attachments ?? []) as unknown[]), ...this.attachmentWires(current.wire.channel_id, added)];
    const ephemeral = current.ephemeralFor !== null;
    if (ephemeral) await this.repo.updateMessage(messageId, { message: JSON.stringify(next), ...(m.poll ? { poll: JSON.stringify(m.poll) } : {}) });
    else {
      const before = await this.channelMessages.get(messageId);
      const set = {
        content: next.content as string,
        embeds: JSON.stringify(next.embeds),
        components: JSON.stringify(next.components),
        flags: next.flags as number,
        ...(mentions ? { mentions: JSON.stringify(mentions.users), mention_roles: JSON.stringify(mentions.roles) } : {}),
        ...(m.poll ? { poll: JSON.stringify(m.poll) } : {}),
        ...(loading ? {} : { edited_at: now }),
        ...(added.length ? { attachments: JSON.stringify([...(JSON.parse(before?.attachments ?? '[]') as StoredAttachment[]), ...added]) } : {}),
      };
      await this.repo.transaction(async (tx) => {
        await this.channelMessages.update(tx, messageId, set);
        // Re-indexed with the new words (the old ones stop matching), as MessageService's edit does.
        if (before) await searchServiceFor(this.store).indexed(tx, { ...before, ...set } as ChannelMessagesTable);
      }).catch(async (e: unknown) => {
        await this.dropUploads(current.wire.channel_id, added);
        throw e;
      });
      if (m.poll) {
        if (current.im) await this.repo.updateMessage(messageId, { poll: JSON.stringify(m.poll) });
      }
    }
    const wire = next as unknown as APIMessage;
    await this.publish(row, 'MESSAGE_UPDATE', wire, ephemeral);
    if (!ephemeral) {
      const updated = await this.channelMessages.get(messageId);
      if (updated) await channelMessageChanged(this.store, { kind: 'update', row: updated });
    }
    return wire;
  }

  async delete(row: InteractionsTable, messageId: string): Promise<void> {
    const { im } = await this.read(row, messageId);
    const stored = im.ephemeral === 1 ? undefined : await this.channelMessages.get(im.id);
    if (im.ephemeral === 1) await this.repo.deleteMessage(im.id);
    else {
      await this.repo.transaction(async (tx) => {
        await this.channelMessages.delete(tx, [im.id]);
        await searchServiceFor(this.store).removed(tx, [im.id]);
      });
      await this.repo.deleteMessage(im.id);
      // Its files go with it (MessageService's dropAttachments).
      if (stored) await this.dropUploads(stored.channel_id, JSON.parse(stored.attachments) as StoredAttachment[]);
    }
    const payload = { id: im.id, channel_id: im.channel_id, ...(row.guild_id ? { guild_id: row.guild_id } : {}) };
    if (im.ephemeral === 1) this.bus.publish(guildUserTopic(row.user_id), { t: row.guild_id ? 'MESSAGE_DELETE' : 'MESSAGE_DELETE|dm', json: JSON.stringify(payload) });
    else if (!row.guild_id) await this.publishInDm(row, 'MESSAGE_DELETE', payload);
    else {
      const channel = await this.store.guilds.channel(im.channel_id);
      if (channel) await this.events.publish(channel.guild_id, 'MESSAGE_DELETE', payload, { kind: 'channel', channel });
    }
    if (im.ephemeral !== 1) await channelMessageChanged(this.store, { kind: 'delete', channelId: im.channel_id, ids: [im.id] });
  }
}
