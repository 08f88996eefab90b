/**
 * The data of the SDK events this host sends (issue 17), in the shapes of the public
 * @discord/embedded-app-sdk's event schemas (output/schema/events.mjs, common.mjs): pure functions,
 * so test/activitySdkEvents.test.ts checks each against the unmodified SDK's zod schemas.
 * Note the SDK's User has `avatar_decoration_data` required (nullable) and `bot` required: an event
 * without them fails the SDK's parse and never reaches the activity's listener.
 */

export interface UserLike {
  id: string;
  username: string;
  global_name?: string | null;
  avatar?: string | null;
  bot?: boolean;
}

/** The SDK's User (CURRENT_USER_UPDATE's data, VOICE_STATE_UPDATE's `user`). */
export function sdkUser(u: UserLike) {
  return {
    id: u.id,
    username: u.username,
    discriminator: '0',
    global_name: u.global_name ?? null,
    ...(u.avatar ? { avatar: u.avatar } : {}),
    avatar_decoration_data: null,
    bot: u.bot === true,
    flags: 0,
  };
}

/** ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE's (and GET_ACTIVITY_INSTANCE_CONNECTED_PARTICIPANTS's) participant. */
export function sdkParticipant(u: UserLike) {
  return { id: u.id, username: u.username, global_name: u.global_name ?? null, discriminator: '0', ...(u.avatar ? { avatar: u.avatar } : {}), flags: 0, bot: u.bot === true };
}

/** A guild voice state as the platform's Gateway sends it (GUILD_CREATE voice_states, VOICE_STATE_UPDATE). */
export interface GatewayVoiceState {
  guild_id?: string | null;
  channel_id: string | null;
  user_id: string;
  mute?: boolean;
  deaf?: boolean;
  self_mute?: boolean;
  self_deaf?: boolean;
  suppress?: boolean;
  member?: { nick?: string | null; user?: UserLike };
}

/**
 * VOICE_STATE_UPDATE's data, the SDK's UserVoiceState: `nick` is what the channel shows (the
 * member's nickname, else their display name), `volume` the local volume (100: the web app has
 * no per-user volume), `mute` the local mute (the web app has none either).
 */
export function sdkVoiceState(vs: GatewayVoiceState, user: UserLike) {
  return {
    mute: false,
    nick: vs.member?.nick ?? user.global_name ?? user.username,
    user: sdkUser(user),
    voice_state: { mute: vs.mute === true, deaf: vs.deaf === true, self_mute: vs.self_mute === true, self_deaf: vs.self_deaf === true, suppress: vs.suppress === true },
    volume: 100,
  };
}

/** ACTIVITY_LAYOUT_MODE_UPDATE: the web app shows the activity focused, never as picture in picture. */
export const LAYOUT_FOCUSED = { layout_mode: 0 } as const;

const pick = (o: unknown, keys: readonly string[]): Record<string, unknown> | undefined => {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (o as Record<string, unknown>)[k];
    if (v !== undefined && v !== null) out[k] = v;
  }
  return out;
};

/**
 * SET_ACTIVITY's activity as the platform's rich presence (PUT .../activity, checked as
 * UpdateRichPresence): the fields both know; `instance`, `secrets.match` and nulls are the SDK's
 * only and are left out.
 */
export function presenceBody(a: Record<string, unknown>): Record<string, unknown> {
  const out = pick(a, ['type', 'state', 'state_url', 'details', 'details_url'])!;
  const timestamps = pick(a.timestamps, ['start', 'end']);
  if (timestamps) out.timestamps = timestamps;
  const assets = pick(a.assets, ['large_image', 'large_text', 'large_url', 'small_image', 'small_text', 'small_url']);
  if (assets) out.assets = assets;
  const party = pick(a.party, ['id', 'size']);
  if (party) out.party = party;
  const secrets = pick(a.secrets, ['join']);
  if (secrets && secrets.join !== undefined) out.secrets = secrets;
  return out;
}

/**
 * RELATIONSHIP_UPDATE's data, the SDK's Relationship (GET_RELATIONSHIPS's element): the type as
 * the activity's own relationship list shows it (0, none, once the relationship is gone) and the
 * other user. No `presence` (optional in the schema; GET_RELATIONSHIPS sends none either).
 */
export function sdkRelationship(type: number, u: UserLike) {
  return { type, user: sdkParticipant(u) };
}

/**
 * ORIENTATION_UPDATE's data: `screen_orientation` is the SDK's OrientationTypeObject (0 portrait,
 * 1 landscape), `orientation` the deprecated string form the schema still requires.
 */
export function sdkOrientation(portrait: boolean) {
  return portrait ? ({ screen_orientation: 0, orientation: 'portrait' } as const) : ({ screen_orientation: 1, orientation: 'landscape' } as const);
}
