import { Type } from 'typebox';
import type { ActivityInviteWire, ActivityWire, DirectMessageWire, Lobby, LobbyMember, LobbyMessage, RelationshipWire, TokenResponse, User, UserApplicationProfile, UserMessageSummaryWire } from '@social-layer/protocol';
import { Snowflake, Wire } from '../../schemas/primitives.ts';

/**
 * Response shapes, for the OpenAPI document. Responses are serialized with JSON.stringify, not
 * from these schemas (a serializer built from a schema drops fields it does not name), so they
 * describe; the handler's return type is the protocol's own interface (see `Wire`). Objects stay
 * open (`additionalProperties` unset): later fields are not a breaking change.
 */

const StrMap = Type.Record(Type.String(), Type.String());
const NullableStr = Type.Union([Type.String(), Type.Null()]);

/** `{code, message, errors?}` (protocols.md 2.2); `errors` mirrors the request, leaves `{_errors: [{code, message}]}`. */
export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'JSON error code (0 for generic HTTP errors)' }),
    message: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Field errors nested by request path; leaves are {"_errors": [{code, message}]}' })),
  },
  { title: 'Error' },
);

/** 429 body (protocols.md 2.3). */
export const RateLimitedBody = Type.Object({ code: Type.Integer(), message: Type.String(), retry_after: Type.Number(), global: Type.Boolean() }, { title: 'RateLimited' });

/** RFC 6749 error body of the OAuth2 endpoints. */
export const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.Optional(Type.String()), code: Type.Optional(Type.Integer()) }, { title: 'OAuthError' });

/** A game profile of an external identity (issue 19); provider_issued_user_id only to the user themself and the application's bot. */
export const ApplicationProfileSchema = Wire<UserApplicationProfile>(
  Type.Object(
    {
      provider_type: Type.String({ description: 'OIDC, EPIC_ONLINE_SERVICES, STEAM, UNITY or DISCORD_BOT' }),
      provider_id: Type.Union([Type.String(), Type.Null()], { description: 'The OIDC issuer, or the application for DISCORD_BOT' }),
      provider_issued_user_id: Type.Optional(Type.String()),
      username: NullableStr,
      avatar_hash: Type.Union([Type.String(), Type.Null()], { description: 'As the provider gives it (an OIDC picture is a URL)' }),
      metadata: NullableStr,
    },
    { title: 'UserApplicationProfile' },
  ),
);

export const UserSchema = Wire<User>(
  Type.Object(
    {
      id: Snowflake(),
      username: Type.String(),
      global_name: NullableStr,
      avatar: NullableStr,
      discriminator: Type.String(),
      bot: Type.Boolean(),
      is_provisional: Type.Boolean({ description: 'True for provisional (guest) accounts' }),
      premium_type: Type.Optional(Type.Integer()),
      email: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'On the user\'s own object with the `email` scope: the account\'s email, null when it has none' })),
      verified: Type.Optional(Type.Boolean({ description: 'With `email`: whether the email was confirmed (the platform sends no confirmation mail, so false)' })),
      application_profiles: Type.Optional(Type.Array(ApplicationProfileSchema, { description: 'On the user\'s own object: its game profiles for the token\'s application' })),
      primary_guild: Type.Optional(
        Type.Object(
          { identity_guild_id: Type.Union([Snowflake(), Type.Null()]), identity_enabled: Type.Union([Type.Boolean(), Type.Null()]), tag: NullableStr, badge: NullableStr },
          { description: 'The guild tag (1 to 4 characters) the user shows beside their name; present once they chose one' },
        ),
      ),
    },
    { title: 'User' },
  ),
);

export const LobbyMemberSchema = Wire<LobbyMember>(
  Type.Object(
    {
      id: Snowflake(),
      metadata: Type.Union([StrMap, Type.Null()]),
      flags: Type.Integer({ description: 'Bit 0: CanLinkLobby' }),
      additional_name: Type.Optional(NullableStr),
      connected: Type.Boolean({ description: 'Ours: the member has a live Gateway session' }),
      user: Type.Optional(Type.Object({}, { description: 'The member\'s user object (see User)' })),
    },
    { title: 'LobbyMember' },
  ),
);

export const LobbySchema = Wire<Lobby>(
  Type.Object(
    {
      id: Snowflake(),
      application_id: Snowflake(),
      metadata: Type.Union([StrMap, Type.Null()]),
      members: Type.Array(Type.Object({ id: Snowflake() }, { description: 'LobbyMember' })),
      linked_channel: Type.Optional(Type.Unknown()),
      voice_states: Type.Optional(Type.Array(Type.Object({}), { description: 'Ours: who is in the lobby\'s call' })),
    },
    { title: 'Lobby' },
  ),
);

export const LobbyMessageSchema = Wire<LobbyMessage>(
  Type.Object(
    {
      id: Snowflake(),
      type: Type.Integer(),
      content: Type.String(),
      lobby_id: Snowflake(),
      channel_id: Snowflake(),
      author: Type.Object({ id: Snowflake() }, { description: 'User' }),
      lobby_member: Type.Optional(Type.Object({ additional_name: NullableStr })),
      metadata: Type.Optional(StrMap),
      moderation_metadata: Type.Optional(StrMap),
      flags: Type.Integer(),
      application_id: Snowflake(),
      timestamp: Type.String({ description: 'ISO 8601' }),
      linked_message: Type.Optional(Type.Object({ id: Snowflake(), channel_id: Snowflake(), guild_id: Snowflake(), origin: Type.String() }, { description: 'Ours: the copy in the linked channel; origin lobby or channel' })),
      edited_timestamp: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      additional_content: Type.Optional(Type.Object({ type: Type.Integer(), count: Type.Integer(), title: Type.Optional(Type.String()) }, { description: 'Ours: AdditionalContentType and count of what a lobby cannot show' })),
    },
    { title: 'LobbyMessage' },
  ),
);

export const ActivitySchema = Wire<ActivityWire>(
  Type.Object(
    {
      name: Type.String(),
      type: Type.Integer(),
      created_at: Type.Optional(Type.Integer({ description: 'ms since the epoch' })),
      application_id: Type.Optional(Snowflake()),
      parent_application_id: Type.Optional(Type.Union([Snowflake(), Type.Null()])),
      state: Type.Optional(NullableStr),
      details: Type.Optional(NullableStr),
      timestamps: Type.Optional(Type.Object({ start: Type.Optional(Type.Integer()), end: Type.Optional(Type.Integer()) })),
      assets: Type.Optional(StrMap),
      party: Type.Optional(Type.Object({ id: Type.Optional(Type.String()), size: Type.Optional(Type.Array(Type.Integer())), privacy: Type.Optional(Type.Integer()) })),
      secrets: Type.Optional(Type.Object({ join: Type.Optional(Type.String()) })),
      buttons: Type.Optional(Type.Array(Type.Object({ label: Type.String(), url: Type.String() }))),
      supported_platforms: Type.Optional(Type.Integer()),
    },
    { title: 'Activity' },
  ),
);

export const RelationshipSchema = Wire<RelationshipWire>(
  Type.Object(
    {
      id: Snowflake(),
      type: Type.Integer({ description: 'Platform relationship (RelationshipType)' }),
      game_type: Type.Integer({ description: 'Ours: relationship in the calling application' }),
      user: Type.Object({ id: Snowflake() }, { description: 'User' }),
      since: Type.String({ description: 'ISO 8601' }),
      is_spam_request: Type.Boolean(),
      has_played_game: Type.Boolean(),
    },
    { title: 'Relationship' },
  ),
);

export const ActivityInviteSchema = Wire<ActivityInviteWire>(
  Type.Object(
    {
      id: Snowflake(),
      type: Type.Integer({ description: '1 invite, 5 join request' }),
      sender_id: Snowflake(),
      recipient_id: Snowflake(),
      channel_id: Snowflake(),
      application_id: Snowflake(),
      parent_application_id: Type.Union([Snowflake(), Type.Null()]),
      party_id: Type.String(),
      session_id: Type.String(),
      content: Type.String(),
      created_at: Type.String({ description: 'ISO 8601' }),
      is_valid: Type.Boolean(),
      cover_image: NullableStr,
      url: NullableStr,
      sender: Type.Object({ id: Snowflake() }, { description: 'User' }),
    },
    { title: 'ActivityInvite' },
  ),
);

export const DirectMessageSchema = Wire<DirectMessageWire>(
  Type.Object(
    {
      id: Snowflake(),
      type: Type.Integer(),
      channel_id: Snowflake(),
      channel_type: Type.Integer(),
      author: Type.Object({ id: Snowflake() }, { description: 'User' }),
      recipient_id: Snowflake(),
      content: Type.String(),
      timestamp: Type.String(),
      edited_timestamp: NullableStr,
      metadata: Type.Optional(StrMap),
      moderation_metadata: Type.Optional(StrMap),
      application_id: Snowflake(),
      flags: Type.Integer(),
    },
    { title: 'DirectMessage' },
  ),
);

export const MessageSummarySchema = Wire<UserMessageSummaryWire>(Type.Object({ user_id: Snowflake(), last_message_id: Snowflake() }, { title: 'MessageSummary' }));

export const TokenResponseSchema = Wire<TokenResponse>(
  Type.Object(
    {
      access_token: Type.String(),
      token_type: Type.Literal('Bearer'),
      expires_in: Type.Integer(),
      scope: Type.String(),
      refresh_token: Type.Optional(Type.String()),
      id_token: Type.Optional(Type.String()),
    },
    { title: 'TokenResponse' },
  ),
);

/** Any JSON object the route documents in words (OIDC discovery, JWKS, the RFC 6749 token shapes). */
export const AnyObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

/** An HTML page. */
export const HtmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });

/** A redirect (303 after a form, 302 for OAuth2), with no body; `Location` says where. */
export const Redirect = (description: string) => Type.Unsafe<void>({ type: 'null', description });

/** 204: no body. */
export const NoContent = Type.Unsafe<void>({ type: 'null', description: 'No content' });
