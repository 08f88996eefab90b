import type { APIMessage } from 'discord-api-types/v10';
import { has, mayDo, Permission } from '../guilds/permissions.ts';
import { MessageErrors as E } from './messageErrors.ts';
import { AuditAction, auditLogFor } from '../moderation/AuditLog.ts';
import type { MessageCaller, MessageHost } from './messageTypes.ts';

const MAX_PINS = 250;

/** Pins of a channel (for MessageService): pin and unpin, and both routes that list them. */
export class MessagePins {
  constructor(private readonly host: MessageHost) {}

  /** Get Channel Pins (new route): `{items: [{pinned_at, message}], has_more}`, newest pin first. */
  async pins(caller: MessageCaller, channelId: string, q: { before?: string; limit?: number }): Promise<{ items: { pinned_at: string; message: APIMessage }[]; has_more: boolean }> {
    const { perms } = await this.host.access(caller, channelId);
    if (!has(perms, Permission.ReadMessageHistory)) return { items: [], has_more: false };
    const limit = q.limit ?? 50;
    let before: number | undefined;
    if (q.before !== undefined) {
      before = Date.parse(q.before);
      if (Number.isNaN(before)) throw E.invalidForm(['before'], 'DATE_TIME_TYPE_PARSE', `Could not parse ${q.before}. Should be ISO8601.`);
    }
    const rows = await this.host.repo.pins(channelId, { ...(before !== undefined ? { before } : {}), limit: limit + 1 });
    const page = rows.slice(0, limit);
    const wires = await this.host.wires(page, caller);
    return { items: page.map((r, i) => ({ pinned_at: new Date(Number(r.pinned_at)).toISOString(), message: wires[i]! })), has_more: rows.length > limit };
  }

  /** The deprecated Get Pinned Messages: an array of every pinned message, newest pin first. */
  async pinsLegacy(caller: MessageCaller, channelId: string): Promise<APIMessage[]> {
    const { perms } = await this.host.access(caller, channelId);
    if (!has(perms, Permission.ReadMessageHistory)) return [];
    const rows = await this.host.repo.pins(channelId, { limit: MAX_PINS });
    return rows.length === 0 ? [] : this.host.wires(rows, caller);
  }

  /** Pin or unpin: PIN_MESSAGES (MANAGE_MESSAGES alone no longer suffices). Idempotent. */
  async setPinned(caller: MessageCaller, channelId: string, messageId: string, pinned: boolean): Promise<void> {
    const { view, channel, perms } = await this.host.access(caller, channelId);
    if (!mayDo(perms, 'pinMessage')) throw E.missingPermissions();
    const row = await this.host.message(channelId, messageId);
    if ((row.pinned_at !== null) === pinned) return;
    if (pinned && (await this.host.repo.pinCount(channel.id)) >= MAX_PINS) throw E.maxPins();
    await this.host.repo.update(this.host.store.database.db, row.id, { pinned_at: pinned ? Date.now() : null });
    if (channel.guild_id !== null) {
      await auditLogFor(this.host.store).record({ guildId: channel.guild_id, userId: caller.userId, reason: caller.auditReason ?? null, actionType: pinned ? AuditAction.MessagePin : AuditAction.MessageUnpin, targetId: row.author_id, options: { channel_id: channel.id, message_id: row.id } });
    }
    const latest = (await this.host.repo.pins(channel.id, { limit: 1 }))[0];
    await this.host.events.publish(channel.guild_id, 'CHANNEL_PINS_UPDATE', {
      guild_id: channel.guild_id, channel_id: channel.id, last_pin_timestamp: latest ? new Date(Number(latest.pinned_at)).toISOString() : null,
    }, { kind: 'channel', channel });
    const wire = await this.host.wire((await this.host.repo.get(row.id))!, { ...caller, bot: false });
    await this.host.publishMessage('MESSAGE_UPDATE', channel, wire, view.userId === row.author_id ? view : undefined);
  }
}
