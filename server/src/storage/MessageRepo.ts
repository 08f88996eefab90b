import type { Kysely, Transaction } from 'kysely';
import type { Metadata } from '@social-layer/protocol';
import { encodeMetadata } from './LobbyRepo.ts';
import type { Database, LobbyMessagesTable } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';
import { PreparedQuery } from './preparedQuery.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Every lobby message's insert, built once (storage/preparedQuery.ts). */
const insertLobbyMessageRow = new PreparedQuery(
  9,
  (db, id: string, lobbyId: string, applicationId: string, authorId: string, content: string, metadata: string | null, additionalName: string | null, flags: number, createdAt: number | string) =>
    db.insertInto('lobby_messages').values({
      id,
      lobby_id: lobbyId,
      application_id: applicationId,
      author_id: authorId,
      content,
      metadata,
      moderation_metadata: null,
      additional_name: additionalName,
      flags,
      created_at: createdAt,
    }),
);

export class MessageRepo {
  constructor(private readonly db: Kysely<Database>, private readonly ids: SnowflakeGenerator) {}

  async insertLobbyMessage(
    db: Db,
    fields: { lobbyId: string; applicationId: string; authorId: string; content: string; metadata: Metadata | null; additionalName: string | null; flags: number },
  ): Promise<LobbyMessagesTable> {
    const row: LobbyMessagesTable = {
      id: this.ids.next(),
      lobby_id: fields.lobbyId,
      application_id: fields.applicationId,
      author_id: fields.authorId,
      content: fields.content,
      metadata: encodeMetadata(fields.metadata),
      moderation_metadata: null,
      additional_name: fields.additionalName,
      flags: fields.flags,
      created_at: Date.now(),
    };
    await insertLobbyMessageRow.all(this.db, db, row.id, row.lobby_id, row.application_id, row.author_id, row.content, row.metadata, row.additional_name, row.flags, row.created_at);
    return row;
  }

  /** Newest first, at most `limit`, none older than `notBefore` (ms). */
  lobbyHistory(lobbyId: string, limit: number, notBefore: number): Promise<LobbyMessagesTable[]> {
    return this.db
      .selectFrom('lobby_messages')
      .selectAll()
      .where('lobby_id', '=', lobbyId)
      .where('created_at', '>=', notBefore)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Total rows of one lobby: lets tests prove that a refused request wrote nothing. */
  async countLobbyMessages(lobbyId: string): Promise<number> {
    const r = await this.db.selectFrom('lobby_messages').select((eb) => eb.fn.countAll<string | number>().as('n')).where('lobby_id', '=', lobbyId).executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
