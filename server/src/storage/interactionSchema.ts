/**
 * Tables of migration 0014_interactions (issue 13). They live apart from schema.ts (which several
 * slices extend at once) and join it by module augmentation.
 */
declare module './schema.ts' {
  interface Database {
    application_commands: ApplicationCommandsTable;
    interactions: InteractionsTable;
    interaction_messages: InteractionMessagesTable;
    interaction_endpoints: InteractionEndpointsTable;
  }
}

export interface ApplicationCommandsTable {
  id: string;
  application_id: string;
  /** Null for a global command. */
  guild_id: string | null;
  /** CHAT_INPUT 1, USER 2, MESSAGE 3, PRIMARY_ENTRY_POINT 4. */
  type: number;
  name: string;
  /** JSON objects (locale -> string) or null. */
  name_localizations: string | null;
  description: string;
  description_localizations: string | null;
  /** JSON array of the public option objects. */
  options: string;
  /** Permission bits as a decimal string, or null (everyone). */
  default_member_permissions: string | null;
  /** Deprecated; kept as given (null when not given). */
  dm_permission: number | null;
  nsfw: number;
  /** JSON arrays of integers, or null (contexts: all). */
  integration_types: string;
  contexts: string | null;
  /** PRIMARY_ENTRY_POINT only: APP_HANDLER 1, PLATFORM_LAUNCH_ACTIVITY 2. */
  handler: number | null;
  /** A snowflake that changes on every update (the public `version`). */
  version: string;
  created_at: number | string;
}

export interface InteractionsTable {
  id: string;
  application_id: string;
  /** PING 1, APPLICATION_COMMAND 2, MESSAGE_COMPONENT 3, AUTOCOMPLETE 4, MODAL_SUBMIT 5. */
  type: number;
  /** The command's type (1-4) for APPLICATION_COMMAND and AUTOCOMPLETE (the response message's type follows it). */
  command_type: number | null;
  /** SHA-256 (hex) of the interaction token; the token itself is never stored. */
  token_hash: string;
  user_id: string;
  /** The application the invoking user's token belongs to (where the user's dispatches go). */
  user_application_id: string;
  guild_id: string | null;
  channel_id: string | null;
  /** The message a component sits on, for UPDATE_MESSAGE and DEFERRED_UPDATE_MESSAGE. */
  message_id: string | null;
  /** JSON of `authorizing_integration_owners` ({"0": guild, "1": user}). */
  authorizing: string;
  /** 1 when only a user install authorizes it (follow-up cap, forced ephemerality). */
  user_installed: number;
  /** 1 when every response is ephemeral whatever the app asks (user install without USE_EXTERNAL_APPS). */
  forced_ephemeral: number;
  /** The client's nonce, echoed in INTERACTION_SUCCESS/FAILURE. */
  nonce: string | null;
  /** pending | responded | failed. */
  state: string;
  response_type: number | null;
  /** JSON of the MODAL (9) or LAUNCH_ACTIVITY (12) response's data, for the modal submit check and the activities slice. */
  response_data: string | null;
  original_message_id: string | null;
  /** Migration 0019: the command's name with its sub-command group and sub-command, or the component's / modal's custom_id (the deprecated message `interaction.name`). */
  name?: string | null;
  /** Migration 0019: for a modal submit, the interaction that opened the modal (`triggering_interaction_metadata`). */
  triggering_id?: string | null;
  /** Migration 0019: the user (USER command) or message (MESSAGE command) a context-menu command targets. */
  target_id?: string | null;
  followups: number;
  created_at: number | string;
  responded_at: number | string | null;
}

/** Messages an interaction created: ephemeral ones live only here (JSON), others point at channel_messages. */
export interface InteractionMessagesTable {
  id: string;
  interaction_id: string;
  application_id: string;
  channel_id: string;
  original: number;
  ephemeral: number;
  /** The whole public Message object of an ephemeral message; null for channel messages. */
  message: string | null;
  /** JSON poll object (the poll of an edited deferred response); channel_messages has no poll column. */
  poll: string | null;
  created_at: number | string;
}

export interface InteractionEndpointsTable {
  application_id: string;
  url: string;
  updated_at: number | string;
}
