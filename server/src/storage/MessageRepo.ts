import type { Kysely, Transaction } from 'kysely';
import type { Metadata } from '@social-layer/protocol';
import { encodeMetadata } from './LobbyRepo.ts';
import type { Database, LobbyMessagesTable } from './schema.ts';
import type { SnowflakeGenerator } from './Snowflake.ts';

type Db = Kysely<Database> | Transaction<Database>;

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
    await db.insertInto('lobby_messages').values(row).execute();
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
