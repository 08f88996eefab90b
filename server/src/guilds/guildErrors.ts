import { ApiError } from '../errors/ApiError.ts';

/** The public error codes of the guild surfaces (protocols.md 2.2). */
export const GuildErrors = {
  unknownChannel: () => new ApiError(404, 10003, 'Unknown Channel'),
  unknownGuild: () => new ApiError(404, 10004, 'Unknown Guild'),
  unknownInvite: () => new ApiError(404, 10006, 'Unknown Invite'),
  unknownMember: () => new ApiError(404, 10007, 'Unknown Member'),
  unknownOverwrite: () => new ApiError(404, 10009, 'Unknown Overwrite'),
  unknownRole: () => new ApiError(404, 10011, 'Unknown Role'),
  unknownUser: () => new ApiError(404, 10013, 'Unknown User'),
  unknownBan: () => new ApiError(404, 10026, 'Unknown Ban'),
  botsCannotUse: () => new ApiError(403, 20001, 'Bots cannot use this endpoint'),
  maxGuilds: () => new ApiError(400, 30001, 'Maximum number of guilds reached (100)'),
  maxRoles: () => new ApiError(400, 30005, 'Maximum number of guild roles reached (250)'),
  maxChannels: () => new ApiError(400, 30013, 'Maximum number of guild channels reached (500)'),
  bannedFromGuild: () => new ApiError(403, 40007, 'The user is banned from this guild.'),
  /** Modify Guild Member's `mute`, `deaf` or `channel_id` for a member in no voice channel. */
  targetNotInVoice: () => new ApiError(400, 40032, 'Target user is not connected to voice.'),
  /** Bulk Guild Ban when not one of the users could be banned. */
  failedToBanUsers: () => new ApiError(400, 500000, 'Failed to ban users'),
  missingAccess: () => new ApiError(403, 50001, 'Missing Access'),
  missingPermissions: () => new ApiError(403, 50013, 'Missing Permissions'),
  invalidForm: (path: string[], code: string, message: string) => {
    // The nested `errors` tree of 50035: each path segment is a level, the leaf holds `_errors`.
    let tree: Record<string, unknown> = { _errors: [{ code, message }] };
    for (const key of [...path].reverse()) tree = { [key]: tree };
    return new ApiError(400, 50035, 'Invalid Form Body', tree as never);
  },
};
