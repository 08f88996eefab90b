import type { APIUserPrimaryGuild } from 'discord-api-types/v10';
import type { UsersTable } from '../storage/schema.ts';

/**
 * `primary_guild` (spec, User): the guild tag (1 to 4 characters, set on the guild) that a user
 * shows beside their name. A user picks one guild they are a member of whose tag is set; the
 * user row keeps a copy of the tag and badge so every user object is written without a join.
 *
 * Choices where the spec is silent (server/README.md): the field is present once a user has
 * chosen (or cleared) a primary guild and absent before; `tag` and `badge` are null unless
 * `identity_enabled` is true; the system clears the identity (`identity_enabled: null`) when the
 * user leaves or is removed from the guild or the guild drops its tag, as the public field's
 * description says it may.
 */
export function primaryGuildWire(u: UsersTable): { primary_guild?: APIUserPrimaryGuild } {
  if (u.primary_guild_id === undefined || (u.primary_guild_id === null && (u.primary_guild_enabled ?? null) === null)) return {};
  const enabled = u.primary_guild_enabled === null || u.primary_guild_enabled === undefined ? null : u.primary_guild_enabled === 1;
  return {
    primary_guild: {
      identity_guild_id: u.primary_guild_id,
      identity_enabled: enabled,
      tag: enabled ? (u.primary_guild_tag ?? null) : null,
      badge: enabled ? (u.primary_guild_badge ?? null) : null,
    },
  };
}

