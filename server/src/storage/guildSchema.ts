/**
 * Table types of migration 0005_guilds. They live apart from schema.ts (which several slices
 * extend at once) and join kysely's Database by module augmentation.
 */
export interface GuildsTable {
  id: string;
  name: string;
  icon: string | null;
  banner: string | null;
  description: string | null;
  owner_id: string;
  /** JSON array of feature names (`ENHANCED_ROLE_COLORS`, ...). */
  features: string;
  /** Guild tag shown as `primary_guild` (1 to 4 characters). */
  tag: string | null;
  /** The tag's badge (image hash). Migration 0011. */
  badge?: string | null;
  system_channel_id: string | null;
  /** Boost level 0 to 3, set by an operator. Migration 0025. */
  premium_tier?: number;
  created_at: number | string;
}

export interface GuildChannelsTable {
  id: string;
  guild_id: string;
  /** ChannelType: 0 text, 2 voice, 4 category. */
  type: number;
  name: string;
  position: number;
  parent_id: string | null;
  topic: string | null;
  nsfw: number;
  bitrate: number | null;
  user_limit: number | null;
  rate_limit_per_user: number;
  /** JSON array of `{id, type, allow, deny}` with string bitfields. */
  permission_overwrites: string;
  application_id: string | null;
  flags: number;
  /** Voice channel status (up to 500 characters). */
  status: string | null;
  /** Unix seconds when the current voice session started. */
  voice_start_time: number | string | null;
  created_at: number | string;
}

export interface GuildRolesTable {
  id: string;
  guild_id: string;
  name: string;
  /** Decimal string of the 64-bit permission bitfield. */
  permissions: string;
  color: number;
  /** JSON `{primary_color, secondary_color, tertiary_color}`. */
  colors: string;
  icon: string | null;
  unicode_emoji: string | null;
  position: number;
  hoist: number;
  managed: number;
  mentionable: number;
  /** The bot user this managed role belongs to (role `tags.bot_id`). */
  bot_user_id: string | null;
  flags: number;
  created_at: number | string;
}

export interface GuildMembersTable {
  guild_id: string;
  user_id: string;
  nick: string | null;
  avatar: string | null;
  banner: string | null;
  bio: string | null;
  flags: number;
  communication_disabled_until: number | string | null;
  joined_at: number | string;
  /** Server mute and deafen (1/0), migration 0011. */
  mute?: number;
  deaf?: number;
}

export interface GuildMemberRolesTable {
  guild_id: string;
  user_id: string;
  role_id: string;
}

export interface GuildBansTable {
  guild_id: string;
  user_id: string;
  reason: string | null;
  created_at: number | string;
}

export interface GuildInvitesTable {
  code: string;
  guild_id: string;
  channel_id: string;
  inviter_id: string | null;
  /** Seconds; 0 never expires. */
  max_age: number;
  /** 0 unlimited. */
  max_uses: number;
  uses: number;
  temporary: number;
  /** JSON array of role IDs granted on accept. */
  role_ids: string;
  /** 1 when only the uploaded target users may accept. */
  has_target_users: number;
  created_at: number | string;
  expires_at: number | string | null;
}

export interface GuildInviteTargetUsersTable {
  code: string;
  user_id: string;
}

export interface EmojisTable {
  id: string;
  guild_id: string | null;
  application_id: string | null;
  name: string;
  animated: number;
  creator_id: string | null;
  /** Data URI of the image. */
  image: string;
  /** JSON array of role IDs allowed to use a guild emoji (empty: everyone). */
  roles: string;
  created_at: number | string;
}

declare module './schema.ts' {
  /** The user's primary guild (`primary_guild`), migration 0011: tag and badge are copies of the guild's. */
  interface UsersTable {
    primary_guild_id?: string | null;
    /** 1 shown, 0 hidden by the user, null cleared by the system. */
    primary_guild_enabled?: number | null;
    primary_guild_tag?: string | null;
    primary_guild_badge?: string | null;
  }
  /** A `bot` authorization with user scopes (migration 0011): the guild the bot was added to. */
  interface OAuthCodesTable {
    guild_id?: string | null;
  }
  interface ApplicationsTable {
    /** When an operator approved the privileged intents (ms); null when never. Migration 0005. */
    privileged_intents_approved_at?: number | string | null;
  }
  interface Database {
    guilds: GuildsTable;
    guild_channels: GuildChannelsTable;
    guild_roles: GuildRolesTable;
    guild_members: GuildMembersTable;
    guild_member_roles: GuildMemberRolesTable;
    guild_bans: GuildBansTable;
    guild_invites: GuildInvitesTable;
    guild_invite_target_users: GuildInviteTargetUsersTable;
    emojis: EmojisTable;
  }
}
