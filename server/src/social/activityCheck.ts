import {
  ActivityPartyPrivacy,
  SETTABLE_ACTIVITY_TYPES,
  SocialLimits as L,
  StatusDisplayTypes,
  type ActivityWire,
  type PresenceStatus,
} from '@social-layer/protocol';
import { array, type Check, int, nullable, object, str } from '../http/validate.ts';

/**
 * The Activity a game may set (rich presence), checked field by field with the header's limits
 * (social-sdk-api.md 4.1). One check serves `PUT /users/@me/activities`, Gateway op 3 and the
 * Identify `presence`, so every way in refuses the same input with the same field errors.
 */

/** A value from a fixed set (enum fields): `BASE_TYPE_CHOICES`, as the public API reports it. */
export function choice(values: readonly number[]): Check<number> {
  return (v, path, errs) => {
    if (typeof v !== 'number' || !values.includes(v)) {
      return void errs.add(path, 'BASE_TYPE_CHOICES', `Value must be one of {${values.join(', ')}}.`);
    }
    return v;
  };
}

/** An http(s) URL within a length range: `URL_TYPE_INVALID_URL` otherwise. */
export function url(min: number, max: number): Check<string> {
  const length = str({ min, max });
  return (v, path, errs) => {
    const s = length(v, path, errs);
    if (s === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(s);
    } catch {
      return void errs.add(path, 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return void errs.add(path, 'URL_TYPE_INVALID_SCHEME', 'Scheme must be http or https.');
    return s;
  };
}

const text = str({ min: L.activityTextMinLength, max: L.activityTextMaxLength });
const image = str({ min: L.assetImageMinLength, max: L.assetImageMaxLength });
const assetUrl = url(L.assetUrlMinLength, L.assetUrlMaxLength);
const timestamp = int({ min: 0, max: Number.MAX_SAFE_INTEGER });

const partySize: Check<[number, number]> = (v, path, errs) => {
  const parsed = array(int({ min: 0, max: L.partySizeMax }), { min: 2, max: 2 })(v, path, errs);
  if (!parsed) return undefined;
  const [current, max] = parsed as [number, number];
  if (current < 1) return void errs.add([...path, 0], 'NUMBER_TYPE_MIN', 'Int value should be greater than or equal to 1.');
  // Max 0 means "no maximum shown"; otherwise the party cannot hold more than its size.
  if (max > 0 && current > max) return void errs.add([...path, 0], 'NUMBER_TYPE_MAX', 'Current size should be less than or equal to the max size.');
  return [current, max];
};

export const activityCheck = object({
  name: { check: str({ min: L.activityNameMinLength, max: L.activityNameMaxLength }) },
  type: { check: choice(SETTABLE_ACTIVITY_TYPES) },
  status_display_type: { check: nullable(choice(Object.values(StatusDisplayTypes))) },
  state: { check: nullable(text) },
  state_url: { check: nullable(url(L.activityLinkMinLength, L.activityLinkMaxLength)) },
  details: { check: nullable(text) },
  details_url: { check: nullable(url(L.activityLinkMinLength, L.activityLinkMaxLength)) },
  timestamps: { check: object({ start: { check: timestamp }, end: { check: timestamp } }) },
  assets: {
    check: object({
      large_image: { check: image },
      large_text: { check: text },
      large_url: { check: assetUrl },
      small_image: { check: image },
      small_text: { check: text },
      small_url: { check: assetUrl },
      invite_cover_image: { check: image },
    }),
  },
  party: {
    check: object({
      id: { check: str({ min: L.partyIdMinLength, max: L.partyIdMaxLength }) },
      size: { check: partySize },
      privacy: { check: choice(Object.values(ActivityPartyPrivacy)) },
    }),
  },
  secrets: { check: object({ join: { check: str({ min: L.joinSecretMinLength, max: L.joinSecretMaxLength }) } }) },
  buttons: {
    check: array(
      object({
        label: { check: str({ min: L.buttonLabelMinLength, max: L.buttonLabelMaxLength }), required: true },
        url: { check: url(L.buttonUrlMinLength, L.buttonUrlMaxLength), required: true },
      }),
      { min: 0, max: L.activityButtonsMax },
    ),
  },
  supported_platforms: { check: int({ min: 0, max: 255 }) },
});

export type ParsedActivity = NonNullable<ReturnType<typeof activityCheck>>;

/** Statuses a user may choose; `offline` is taken as `invisible`, as the public Gateway does. */
export const statusCheck: Check<PresenceStatus> = (v, path, errs) => {
  if (v !== 'online' && v !== 'idle' && v !== 'dnd' && v !== 'invisible' && v !== 'offline') {
    return void errs.add(path, 'BASE_TYPE_CHOICES', 'Value must be one of {online, idle, dnd, invisible, offline}.');
  }
  return v === 'offline' ? 'invisible' : v;
};

/** Op 3 / Identify `presence` (protocols.md 1.6): one activity per application. */
export const presenceUpdateCheck = object({
  since: { check: nullable(int({ min: 0, max: Number.MAX_SAFE_INTEGER })) },
  activities: { check: array(activityCheck, { min: 0, max: 1 }) },
  status: { check: statusCheck },
  afk: { check: (v, path, errs) => (typeof v === 'boolean' ? v : void errs.add(path, 'BASE_TYPE_BOOLEAN', 'Must be either true or false.')) },
});

/**
 * The stored activity: fields the SDK cannot set are the server's (application, creation time,
 * the name defaults to the application's), and small timestamps are seconds (the header's rule).
 */
export function normalizeActivity(a: ParsedActivity, app: { id: string; name: string; parentId: string | null }, now: number): ActivityWire {
  const out: ActivityWire = {
    name: a.name ?? app.name,
    type: a.type ?? 0,
    created_at: now,
    application_id: app.id,
    parent_application_id: app.parentId,
  };
  if (a.status_display_type !== undefined && a.status_display_type !== null) out.status_display_type = a.status_display_type;
  for (const key of ['state', 'state_url', 'details', 'details_url'] as const) {
    const v = a[key];
    if (typeof v === 'string') out[key] = v;
  }
  if (a.timestamps && (a.timestamps.start !== undefined || a.timestamps.end !== undefined)) {
    out.timestamps = {};
    if (a.timestamps.start !== undefined) out.timestamps.start = toMs(a.timestamps.start);
    if (a.timestamps.end !== undefined) out.timestamps.end = toMs(a.timestamps.end);
  }
  if (a.assets && Object.keys(a.assets).length > 0) out.assets = { ...a.assets };
  if (a.party && Object.keys(a.party).length > 0) out.party = { ...a.party };
  if (a.secrets?.join !== undefined) out.secrets = { join: a.secrets.join };
  if (a.buttons && a.buttons.length > 0) out.buttons = a.buttons.map((b) => ({ label: b.label, url: b.url }));
  if (a.supported_platforms !== undefined) out.supported_platforms = a.supported_platforms;
  return out;
}

function toMs(t: number): number {
  return t < L.timestampSecondsBelow ? t * 1000 : t;
}

/** What friends see: everything but the join secret, which goes only to users let into the party. */
export function publicActivity(a: ActivityWire): ActivityWire {
  if (!a.secrets) return a;
  const { secrets: _secrets, ...rest } = a;
  return rest;
}

/** A party that can take one more player: an ID, room (or no maximum) and a join secret. */
export function joinable(a: ActivityWire | undefined): a is ActivityWire & { party: { id: string }; secrets: { join: string } } {
  if (!a?.party?.id || !a.secrets?.join) return false;
  const size = a.party.size;
  return size !== undefined && (size[1] === 0 || size[0] < size[1]);
}
