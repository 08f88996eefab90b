import { ApiErrorCode } from '@social-layer/protocol';
import { ApiError } from '../errors/ApiError.ts';

/** The errors of relationships, invites and direct messages, in the `{code, message}` shape. */
export const SocialErrors = {
  noUserWithThatName: () => new ApiError(400, ApiErrorCode.NoUserWithThatName, 'No users with that username exist'),
  cannotFriendSelf: () => new ApiError(400, ApiErrorCode.CannotFriendSelf, 'Cannot send friend request to self'),
  cannotBlockSelf: () => new ApiError(400, ApiErrorCode.CannotFriendSelf, 'Cannot block yourself'),
  botsCannotHaveFriends: () => new ApiError(400, ApiErrorCode.BotsCannotHaveFriends, 'Bots cannot have friends'),
  friendRequestBlocked: () => new ApiError(400, ApiErrorCode.FriendRequestBlocked, 'Friend request blocked'),
  alreadyFriends: () => new ApiError(400, ApiErrorCode.AlreadyFriends, 'You are already friends with this user'),
  alreadySent: () => new ApiError(400, ApiErrorCode.FriendRequestAlreadySent, 'A friend request to this user is already pending'),
  noIncomingRequest: () => new ApiError(400, ApiErrorCode.NoIncomingFriendRequest, 'There is no pending friend request from this user'),
  noOutgoingRequest: () => new ApiError(400, ApiErrorCode.NoOutgoingFriendRequest, 'There is no pending friend request to this user'),
  notFriends: () => new ApiError(400, ApiErrorCode.NotFriends, 'You need to be friends in order to make this change'),
  notBlocked: () => new ApiError(400, ApiErrorCode.UserNotBlocked, 'This user is not blocked'),
  cannotMessageUser: () => new ApiError(403, ApiErrorCode.CannotSendMessagesToUser, 'Cannot send messages to this user'),
  cannotEditOthersMessage: () => new ApiError(403, ApiErrorCode.CannotEditOtherUsersMessage, "Cannot edit a message authored by another user"),
  cannotDeleteOthersMessage: () => new ApiError(403, ApiErrorCode.CannotExecuteOnDm, 'Cannot execute action on a DM channel'),
  unknownMessage: () => new ApiError(404, ApiErrorCode.UnknownMessage, 'Unknown Message'),
  unknownInvite: () => new ApiError(404, ApiErrorCode.UnknownInvite, 'Unknown Invite'),
  notJoinable: () =>
    new ApiError(400, ApiErrorCode.ActivityNotJoinable, 'No joinable activity: set a party with an ID, a size with room and a join secret'),
  inviteNoLongerValid: () => new ApiError(400, ApiErrorCode.InviteNoLongerValid, 'This invite is no longer valid'),
  partyFull: () => new ApiError(400, ApiErrorCode.PartyFull, 'The party is full'),
};
