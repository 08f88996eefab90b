/**
 * Table types for kysely. Timestamps are integer milliseconds (BIGINT); PostgreSQL returns BIGINT
 * as a string, so reads go through `toMs`. Booleans are stored as 0/1 integers, which both
 * dialects handle the same way. JSON maps are TEXT (SQLite has no JSON column type).
 */
export interface ApplicationsTable {
  id: string;
  name: string;
  client_secret_hash: string;
  bot_token_hash: string;
  bot_user_id: string;
  public_client: number;
  flags: number;
  created_at: number | string;
}

export interface UsersTable {
  id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
  is_provisional: number;
  is_bot: number;
  created_at: number | string;
}

export interface ExternalIdentitiesTable {
  application_id: string;
  auth_type: string;
  external_id: string;
  user_id: string;
  created_at: number | string;
}

export interface AccessTokensTable {
  token_hash: string;
  user_id: string;
  application_id: string;
  scopes: string;
  expires_at: number | string;
  created_at: number | string;
}

export interface LobbiesTable {
  id: string;
  application_id: string;
  secret: string | null;
  metadata: string | null;
  idle_timeout_seconds: number;
  /** When the last connected member left (ms); null while someone is connected or never idle-tracked. */
  idle_since: number | string | null;
  created_at: number | string;
}

export interface LobbyMembersTable {
  lobby_id: string;
  user_id: string;
  metadata: string | null;
  flags: number;
  additional_name: string | null;
  joined_at: number | string;
}

export interface LobbyMessagesTable {
  id: string;
  lobby_id: string;
  application_id: string;
  author_id: string;
  content: string;
  metadata: string | null;
  moderation_metadata: string | null;
  additional_name: string | null;
  flags: number;
  created_at: number | string;
}

export interface Database {
  applications: ApplicationsTable;
  users: UsersTable;
  external_identities: ExternalIdentitiesTable;
  access_tokens: AccessTokensTable;
  lobbies: LobbiesTable;
  lobby_members: LobbyMembersTable;
  lobby_messages: LobbyMessagesTable;
}

export function toMs(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}
