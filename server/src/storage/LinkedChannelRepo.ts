import type { Kysely, Transaction } from 'kysely';
import type { Database, LobbyMessagesTable } from './schema.ts';
import { PreparedQuery } from './preparedQuery.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** A lobby linked to a guild text channel (migration 0017_linked_channels). */
export interface LobbyChannelLinksTable {
  lobby_id: string;
  channel_id: string;
  guild_id: string;
  application_id: string;
  linked_by: string;
  created_at: number | string;
}

/** One message and its copy on the other side of a link. */
export interface LobbyMessageMirrorsTable {
  lobby_message_id: string;
  channel_message_id: string;
  lobby_id: string;
  channel_id: string;
  guild_id: string;
  /** Where it was written: 'lobby' (a game client) or 'channel' (the web app, a bot...). */
  origin: 'lobby' | 'channel';
  /** ms of the lobby copy's last edit, null when never edited. */
  edited_at: number | string | null;
}

declare module './schema.ts' {
  interface Database {
    lobby_channel_links: LobbyChannelLinksTable;
    lobby_message_mirrors: LobbyMessageMirrorsTable;
  }
}

/** Read by every lobby message and every lobby view (storage/preparedQuery.ts). */
const linkOfLobby = new PreparedQuery(1, (db, lobbyId: string) => db.selectFrom('lobby_channel_links').selectAll().where('lobby_id', '=', lobbyId));

/** Links and mirror pairs. Built from the database (not a Store field: Store.ts is every slice's file). */
export class LinkedChannelRepo {
  constructor(private readonly db: Kysely<Database>) {}

  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  ofLobby(lobbyId: string, db: Db = this.db): Promise<LobbyChannelLinksTable | undefined> {
    return linkOfLobby.first(this.db, db, lobbyId);
  }

  ofChannel(channelId: string, db: Db = this.db): Promise<LobbyChannelLinksTable | undefined> {
    return db.selectFrom('lobby_channel_links').selectAll().where('channel_id', '=', channelId).executeTakeFirst();
  }

  ofChannels(channelIds: string[]): Promise<LobbyChannelLinksTable[]> {
    if (channelIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('lobby_channel_links').selectAll().where('channel_id', 'in', channelIds).execute();
  }

  async link(db: Db, row: LobbyChannelLinksTable): Promise<void> {
    await db.insertInto('lobby_channel_links').values(row).execute();
  }

  /** Returns whether a link was removed. */
  async unlink(db: Db, lobbyId: string): Promise<boolean> {
    const r = await db.deleteFrom('lobby_channel_links').where('lobby_id', '=', lobbyId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async addMirror(db: Db, row: LobbyMessageMirrorsTable): Promise<void> {
    await db.insertInto('lobby_message_mirrors').values(row).execute();
  }

  mirrorOfChannelMessage(channelMessageId: string, db: Db = this.db): Promise<LobbyMessageMirrorsTable | undefined> {
    return db.selectFrom('lobby_message_mirrors').selectAll().where('channel_message_id', '=', channelMessageId).executeTakeFirst();
  }

  mirrorsOfLobbyMessages(lobbyMessageIds: string[]): Promise<LobbyMessageMirrorsTable[]> {
    if (lobbyMessageIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('lobby_message_mirrors').selectAll().where('lobby_message_id', 'in', lobbyMessageIds).execute();
  }

  async markEdited(db: Db, lobbyMessageId: string, at: number): Promise<void> {
    await db.updateTable('lobby_message_mirrors').set({ edited_at: at }).where('lobby_message_id', '=', lobbyMessageId).execute();
  }

  async dropMirror(db: Db, lobbyMessageId: string): Promise<void> {
    await db.deleteFrom('lobby_message_mirrors').where('lobby_message_id', '=', lobbyMessageId).execute();
  }

  /** A lobby message (mirror copies are ordinary lobby messages). */
  lobbyMessage(id: string, db: Db = this.db): Promise<LobbyMessagesTable | undefined> {
    return db.selectFrom('lobby_messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async setLobbyMessageContent(db: Db, id: string, content: string): Promise<void> {
    await db.updateTable('lobby_messages').set({ content }).where('id', '=', id).execute();
  }

  async deleteLobbyMessage(db: Db, id: string): Promise<void> {
    await db.deleteFrom('lobby_messages').where('id', '=', id).execute();
  }

  /** Everything of one lobby, when the lobby itself goes. */
  async forgetLobby(db: Db, lobbyId: string): Promise<void> {
    await db.deleteFrom('lobby_message_mirrors').where('lobby_id', '=', lobbyId).execute();
    await db.deleteFrom('lobby_channel_links').where('lobby_id', '=', lobbyId).execute();
  }
}

const byDb = new WeakMap<object, LinkedChannelRepo>();

export function linkedChannelRepo(db: Kysely<Database>): LinkedChannelRepo {
  let r = byDb.get(db);
  if (!r) byDb.set(db, (r = new LinkedChannelRepo(db)));
  return r;
}
