import { ApiError } from '../errors/ApiError.ts';
import { GuildErrors } from '../guilds/guildErrors.ts';

/** The public error codes of the message surfaces (spec, error codes; protocols.md 2.2). */
export const MessageErrors = {
  ...GuildErrors,
  unknownMessage: () => new ApiError(404, 10008, 'Unknown Message'),
  unknownEmoji: () => new ApiError(400, 10014, 'Unknown Emoji'),
  slowmode: (retryAfter: number) => {
    const e = new ApiError(429, 20016, 'This action cannot be performed due to slowmode rate limit.');
    e.retryAfter = retryAfter;
    return e;
  },
  alreadyCrossposted: () => new ApiError(400, 40033, 'This message has already been crossposted.'),
  maxPins: () => new ApiError(400, 30003, 'Maximum number of pins reached (250)'),
  editOthers: () => new ApiError(403, 50005, 'Cannot edit a message authored by another user'),
  emptyMessage: () => new ApiError(400, 50006, 'Cannot send an empty message'),
  notText: () => new ApiError(400, 50008, 'Cannot send messages in a non-text channel'),
  wrongChannelType: () => new ApiError(400, 50024, 'Cannot execute action on this channel type'),
  tooOldToBulkDelete: () => new ApiError(400, 50034, 'You can only bulk delete messages that are under 14 days old.'),
  replyWithoutHistory: () => new ApiError(403, 160002, 'Cannot reply without permission to read message history'),
  forwardUnreadable: () => new ApiError(403, 160014, 'You cannot forward a message whose content you cannot read'),
};
