import type { APIEmoji } from 'discord-api-types/v10';
import { ApiError } from '../errors/ApiError.ts';
import type { Store } from '../storage/Store.ts';
import type { EmojisTable } from '../storage/guildSchema.ts';
import type { UsersTable } from '../storage/schema.ts';
import { viewGuild } from './GuildAccess.ts';
import { GuildErrors } from './guildErrors.ts';
import type { GuildEvents } from './GuildEvents.ts';
import { userWire } from './guildWire.ts';
import { Permission, has, mayDo } from './permissions.ts';
import type { AttachmentStore } from '../messages/attachments.ts';

/** Guild emoji slots (the public base tier) and the application limit of the spec. */
export const MAX_GUILD_EMOJIS = 50;
export const MAX_APPLICATION_EMOJIS = 2000;
/** The public upload limit of an emoji image. */
export const MAX_EMOJI_BYTES = 256 * 1024;

const unknownEmoji = () => new ApiError(404, 10014, 'Unknown Emoji');
const maxEmojis = (n: number) => new ApiError(400, 30008, `Maximum number of emojis reached (${n})`);

export function emojiWire(e: EmojisTable, creator?: UsersTable): APIEmoji {
  return {
    id: e.id,
    name: e.name,
    roles: JSON.parse(e.roles) as string[],
    ...(creator ? { user: userWire(creator) } : {}),
    require_colons: true,
    managed: false,
    animated: e.animated === 1,
    available: true,
  } as APIEmoji;
}

/**
 * An emoji row whose image bytes live in the attachment store holds `file:<content type>` in
 * `image` (the store key is `<guild or application>/<emoji>`); older rows hold the data URI.
 */
const STORED = 'file:';

/** The content type and bytes of an upload's data URI (the route's pattern admits only these). */
function decodeDataUri(dataUri: string): { type: string; bytes: Buffer } | undefined {
  const m = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s.exec(dataUri);
  return m ? { type: m[1]!, bytes: Buffer.from(m[2]!, 'base64') } : undefined;
}

const fileKey = (e: Pick<EmojisTable, 'id' | 'guild_id' | 'application_id'>) => `${e.guild_id ?? e.application_id}/${e.id}`;

/** Bytes of a data URI's payload, and whether it is a GIF (animated). */
function imageOf(dataUri: string): { bytes: number; animated: boolean } {
  const comma = dataUri.indexOf(',');
  const b64 = dataUri.slice(comma + 1);
  return { bytes: Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0), animated: dataUri.startsWith('data:image/gif') };
}

/**
 * Guild emojis (creating needs CREATE_GUILD_EXPRESSIONS since the 2026-02-23 split; editing or
 * deleting another member's needs MANAGE_GUILD_EXPRESSIONS) and application emojis (the bot token
 * of that application; at most 2,000, the 2,001st is 30008).
 */
export class EmojiService {
  /**
   * Where the images go: the attachment store (the data folder's `attachments/`, as message
   * attachments; set by the emoji routes when the server has a data folder). Unset, the row keeps
   * the data URI.
   */
  files: AttachmentStore | null = null;

  constructor(private readonly store: Store, private readonly events: GuildEvents) {}

  /** Inserts the row, then the bytes into the store (the row is taken back if that fails). */
  private async createRow(row: Omit<EmojisTable, 'id' | 'created_at'>): Promise<EmojisTable> {
    const upload = this.files ? decodeDataUri(row.image) : undefined;
    if (!this.files || !upload) return this.store.emojis.create(this.store.database.db, row);
    const created = await this.store.emojis.create(this.store.database.db, { ...row, image: STORED + upload.type });
    try {
      await this.files.put(fileKey(created), upload.bytes);
    } catch (err) {
      await this.store.emojis.delete(this.store.database.db, created.id);
      throw err;
    }
    return created;
  }

  /** Deletes the row, then its stored bytes. */
  private async deleteRow(e: EmojisTable): Promise<void> {
    await this.store.emojis.delete(this.store.database.db, e.id);
    if (e.image.startsWith(STORED)) await this.files?.delete(fileKey(e)).catch(() => {});
  }

  private checkImage(image: string): boolean {
    const { bytes, animated } = imageOf(image);
    if (bytes > MAX_EMOJI_BYTES) throw GuildErrors.invalidForm(['image'], 'BINARY_TYPE_MAX_SIZE', `The image is larger than ${MAX_EMOJI_BYTES / 1024} KiB`);
    return animated;
  }

  private async wire(rows: EmojisTable[]): Promise<APIEmoji[]> {
    const users = await this.store.users.getMany(rows.flatMap((r) => (r.creator_id ? [r.creator_id] : [])));
    return rows.map((r) => emojiWire(r, r.creator_id ? users.get(r.creator_id) : undefined));
  }

  // ---- guild emojis --------------------------------------------------------------------------

  async listGuild(userId: string, guildId: string) {
    await viewGuild(this.store, guildId, userId);
    return this.wire(await this.store.emojis.ofGuild(guildId));
  }

  async getGuild(userId: string, guildId: string, emojiId: string) {
    await viewGuild(this.store, guildId, userId);
    const e = await this.store.emojis.get(emojiId);
    if (!e || e.guild_id !== guildId) throw unknownEmoji();
    return (await this.wire([e]))[0]!;
  }

  async createGuild(userId: string, guildId: string, input: { name: string; image: string; roles?: string[] }) {
    const v = await viewGuild(this.store, guildId, userId);
    if (!mayDo(v.permissions, 'createEmoji')) throw GuildErrors.missingPermissions();
    for (const id of input.roles ?? []) if (!v.roles.some((r) => r.id === id)) throw GuildErrors.unknownRole();
    const animated = this.checkImage(input.image);
    if ((await this.store.emojis.count({ guildId })) >= MAX_GUILD_EMOJIS) throw maxEmojis(MAX_GUILD_EMOJIS);
    const row = await this.createRow({ guild_id: guildId, application_id: null, name: input.name, animated: animated ? 1 : 0, creator_id: userId, image: input.image, roles: JSON.stringify(input.roles ?? []) });
    await this.emojisUpdated(guildId);
    return (await this.wire([row]))[0]!;
  }

  async modifyGuild(userId: string, guildId: string, emojiId: string, input: { name?: string; roles?: string[] | null }) {
    const { v, e } = await this.manageable(userId, guildId, emojiId);
    for (const id of input.roles ?? []) if (!v.roles.some((r) => r.id === id)) throw GuildErrors.unknownRole();
    await this.store.emojis.update(this.store.database.db, e.id, { ...(input.name !== undefined ? { name: input.name } : {}), ...(input.roles !== undefined ? { roles: JSON.stringify(input.roles ?? []) } : {}) });
    await this.emojisUpdated(guildId);
    return (await this.wire([(await this.store.emojis.get(e.id))!]))[0]!;
  }

  async deleteGuild(userId: string, guildId: string, emojiId: string) {
    const { e } = await this.manageable(userId, guildId, emojiId);
    await this.deleteRow(e);
    await this.emojisUpdated(guildId);
  }

  /** One's own emoji with CREATE_GUILD_EXPRESSIONS; anyone's with MANAGE_GUILD_EXPRESSIONS. */
  private async manageable(userId: string, guildId: string, emojiId: string) {
    const v = await viewGuild(this.store, guildId, userId);
    const e = await this.store.emojis.get(emojiId);
    if (!e || e.guild_id !== guildId) throw unknownEmoji();
    const own = e.creator_id === userId && mayDo(v.permissions, 'createEmoji');
    if (!own && !has(v.permissions, Permission.ManageGuildExpressions)) throw GuildErrors.missingPermissions();
    return { v, e };
  }

  private async emojisUpdated(guildId: string) {
    await this.events.publish(guildId, 'GUILD_EMOJIS_UPDATE', { guild_id: guildId, emojis: await this.wire(await this.store.emojis.ofGuild(guildId)) }, { kind: 'guild' });
  }

  // ---- application emojis --------------------------------------------------------------------

  async listApplication(applicationId: string) {
    return { items: await this.wire(await this.store.emojis.ofApplication(applicationId)) };
  }

  async getApplication(applicationId: string, emojiId: string) {
    const e = await this.store.emojis.get(emojiId);
    if (!e || e.application_id !== applicationId) throw unknownEmoji();
    return (await this.wire([e]))[0]!;
  }

  async createApplication(applicationId: string, botUserId: string, input: { name: string; image: string }) {
    const animated = this.checkImage(input.image);
    const existing = await this.store.emojis.ofApplication(applicationId);
    if (existing.length >= MAX_APPLICATION_EMOJIS) throw maxEmojis(MAX_APPLICATION_EMOJIS);
    // Names are unique within an application (the public rule for application emojis).
    if (existing.some((e) => e.name === input.name)) throw GuildErrors.invalidForm(['name'], 'APPLICATION_EMOJI_NAME_ALREADY_TAKEN', 'An emoji with this name already exists');
    const row = await this.createRow({ guild_id: null, application_id: applicationId, name: input.name, animated: animated ? 1 : 0, creator_id: botUserId, image: input.image, roles: '[]' });
    return (await this.wire([row]))[0]!;
  }

  async modifyApplication(applicationId: string, emojiId: string, name: string) {
    const e = await this.store.emojis.get(emojiId);
    if (!e || e.application_id !== applicationId) throw unknownEmoji();
    if ((await this.store.emojis.ofApplication(applicationId)).some((x) => x.name === name && x.id !== emojiId)) throw GuildErrors.invalidForm(['name'], 'APPLICATION_EMOJI_NAME_ALREADY_TAKEN', 'An emoji with this name already exists');
    await this.store.emojis.update(this.store.database.db, emojiId, { name });
    return (await this.wire([(await this.store.emojis.get(emojiId))!]))[0]!;
  }

  async deleteApplication(applicationId: string, emojiId: string) {
    const e = await this.store.emojis.get(emojiId);
    if (!e || e.application_id !== applicationId) throw unknownEmoji();
    await this.deleteRow(e);
  }

  /** The image for the CDN path /emojis/{id}.{ext}: content type and bytes. */
  async image(emojiId: string): Promise<{ type: string; bytes: Buffer } | undefined> {
    const e = /^\d{1,20}$/.test(emojiId) ? await this.store.emojis.get(emojiId) : undefined;
    if (!e) return undefined;
    if (e.image.startsWith(STORED)) {
      const bytes = await this.files?.get(fileKey(e));
      return bytes ? { type: e.image.slice(STORED.length), bytes } : undefined;
    }
    return decodeDataUri(e.image);
  }
}
