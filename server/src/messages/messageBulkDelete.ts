import { has, Permission } from '../guilds/permissions.ts';
import { SNOWFLAKE_EPOCH_MS } from '@social-layer/protocol';
import { MessageErrors as E } from './messageErrors.ts';
import { searchServiceFor } from './search/SearchService.ts';
import { AuditAction, auditLogFor } from '../moderation/AuditLog.ts';
import { channelMessageChanged } from './channelMessageHooks.ts';
import type { MessageCaller, MessageHost } from './messageTypes.ts';

const BULK_DELETE_MAX_AGE_MS = 14 * 24 * 3600_000;

/** Deleting many messages at once (for MessageService): Bulk Delete Messages, and a ban's recent messages. */
export class MessageBulkDelete {
  constructor(private readonly host: MessageHost) {}

  /**
   * 2 to 100 IDs (the schema checks the count); any older than 14 days refuses the whole request
   * (age from the snowflake, as publicly), IDs of other channels or unknown ones are skipped.
   */
  async bulkDelete(caller: MessageCaller, channelId: string, ids: string[]): Promise<void> {
    const { channel, perms } = await this.host.access(caller, channelId);
    if (!has(perms, Permission.ManageMessages)) throw E.missingPermissions();
    const cutoff = Date.now() - BULK_DELETE_MAX_AGE_MS;
    for (const [i, id] of ids.entries()) {
      if (!/^\d{1,20}$/.test(id)) throw E.invalidForm(['messages', String(i)], 'NUMBER_TYPE_COERCE', `Value "${id}" is not snowflake.`);
      if (Number(BigInt(id) >> 22n) + SNOWFLAKE_EPOCH_MS < cutoff) throw E.tooOldToBulkDelete();
    }
    const rows = await this.host.repo.many(channel.id, [...new Set(ids)]);
    if (rows.length === 0) return;
    await this.host.repo.transaction(async (tx) => {
      await this.host.repo.delete(tx, rows.map((r) => r.id));
      await searchServiceFor(this.host.store).removed(tx, rows.map((r) => r.id));
    });
    await this.host.dropAttachments(rows);
    if (channel.guild_id !== null) {
      await auditLogFor(this.host.store).record({ guildId: channel.guild_id, userId: caller.userId, reason: caller.auditReason ?? null, actionType: AuditAction.MessageBulkDelete, targetId: channel.id, options: { count: String(rows.length) } });
    }
    await this.host.events.publish(channel.guild_id, 'MESSAGE_DELETE_BULK', { ids: rows.map((r) => r.id), channel_id: channel.id, guild_id: channel.guild_id }, { kind: 'channel', channel });
    await channelMessageChanged(this.host.store, { kind: 'delete', channelId: channel.id, ids: rows.map((r) => r.id) });
  }

  /**
   * A ban's `delete_message_seconds`: the banned users' messages in the guild from that window,
   * deleted with one MESSAGE_DELETE_BULK per channel (the ban is the audited act, not these).
   */
  async deleteRecentByAuthors(guildId: string, authorIds: string[], seconds: number): Promise<void> {
    if (seconds <= 0 || authorIds.length === 0) return;
    const rows = await this.host.repo.byAuthorsSince(guildId, authorIds, Date.now() - seconds * 1000);
    if (rows.length === 0) return;
    await this.host.repo.transaction(async (tx) => {
      await this.host.repo.delete(tx, rows.map((r) => r.id));
      await searchServiceFor(this.host.store).removed(tx, rows.map((r) => r.id));
    });
    await this.host.dropAttachments(rows);
    const byChannel = new Map<string, string[]>();
    for (const r of rows) byChannel.set(r.channel_id, [...(byChannel.get(r.channel_id) ?? []), r.id]);
    for (const [channelId, ids] of byChannel) {
      const channel = await this.host.store.guilds.channel(channelId);
      if (!channel) continue;
      await this.host.events.publish(guildId, 'MESSAGE_DELETE_BULK', { ids, channel_id: channelId, guild_id: guildId }, { kind: 'channel', channel });
      await channelMessageChanged(this.host.store, { kind: 'delete', channelId, ids });
    }
  }
}
