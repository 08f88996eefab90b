import {
  ActivityPartyPrivacy,
  SETTABLE_ACTIVITY_TYPES,
  SocialLimits as L,
  StatusDisplayTypes,
  type ActivityWire,
  type PresenceStatus,
} from '@social-layer/protocol';
import { type Static, Type } from 'typebox';
import { Choice, HttpUrl, Int, Nullable, Str } from '../schemas/primitives.ts';
import { parseWith, SchemaKeywords } from '../schemas/validator.ts';

/**
 * The Activity a game may set (rich presence), as a schema with the header's limits
 * (social-sdk-api.md 4.1). One schema serves `PUT /users/@me/activities`, Gateway op 3 and the
 * Identify `presence`, so every way in refuses the same input with the same field errors.
 */

const text = Str(L.activityTextMinLength, L.activityTextMaxLength);
const image = Str(L.assetImageMinLength, L.assetImageMaxLength, { description: 'Asset key or URL' });
const assetUrl = HttpUrl(L.assetUrlMinLength, L.assetUrlMaxLength);
const timestamp = Int(0, Number.MAX_SAFE_INTEGER, 'Seconds or ms since the epoch (values below 1e11 are seconds)');

/** `[current, max]`: current 1..; max 0 means "no maximum shown", otherwise current <= max. */
const partySize = Type.Unsafe<[number, number]>({
  type: 'array',
  prefixItems: [Int(1, L.partySizeMax), Int(0, L.partySizeMax)],
  minItems: 2,
  maxItems: 2,
  [SchemaKeywords.partySize]: true,
  description: '[current, max]; max 0 = no maximum shown',
} as never);

export const ActivityBody = Type.Object(
  {
    name: Type.Optional(Str(L.activityNameMinLength, L.activityNameMaxLength, { description: 'Defaults to the application name' })),
    type: Type.Optional(Choice(SETTABLE_ACTIVITY_TYPES, 'ActivityTypes a game may set')),
    status_display_type: Type.Optional(Nullable(Choice(Object.values(StatusDisplayTypes)))),
    state: Type.Optional(Nullable(text)),
    state_url: Type.Optional(Nullable(HttpUrl(L.activityLinkMinLength, L.activityLinkMaxLength))),
    details: Type.Optional(Nullable(text)),
    details_url: Type.Optional(Nullable(HttpUrl(L.activityLinkMinLength, L.activityLinkMaxLength))),
    timestamps: Type.Optional(Type.Object({ start: Type.Optional(timestamp), end: Type.Optional(timestamp) })),
    assets: Type.Optional(
      Type.Object({
        large_image: Type.Optional(image),
        large_text: Type.Optional(text),
        large_url: Type.Optional(assetUrl),
        small_image: Type.Optional(image),
        small_text: Type.Optional(text),
        small_url: Type.Optional(assetUrl),
        invite_cover_image: Type.Optional(image),
      }),
    ),
    party: Type.Optional(
      Type.Object({
        id: Type.Optional(Str(L.partyIdMinLength, L.partyIdMaxLength)),
        size: Type.Optional(partySize),
        privacy: Type.Optional(Choice(Object.values(ActivityPartyPrivacy))),
      }),
    ),
    secrets: Type.Optional(Type.Object({ join: Type.Optional(Str(L.joinSecretMinLength, L.joinSecretMaxLength)) })),
    buttons: Type.Optional(
      Type.Array(Type.Object({ label: Str(L.buttonLabelMinLength, L.buttonLabelMaxLength), url: HttpUrl(L.buttonUrlMinLength, L.buttonUrlMaxLength) }), {
        minItems: 0,
        maxItems: L.activityButtonsMax,
      }),
    ),
    supported_platforms: Type.Optional(Int(0, 255, 'ActivityGamePlatforms bits')),
  },
  { title: 'ActivityInput' },
);

export type ParsedActivity = Static<typeof ActivityBody>;

/** Statuses a user may choose; PresenceService takes `offline` as `invisible`, as the public Gateway does. */
export const StatusValue = Choice<PresenceStatus>(['online', 'idle', 'dnd', 'invisible', 'offline']);

/** Op 3 / Identify `presence` (protocols.md 1.6): one activity per application. */
export const PresenceUpdate = Type.Object({
  since: Type.Optional(Nullable(Int(0, Number.MAX_SAFE_INTEGER))),
  activities: Type.Optional(Type.Array(ActivityBody, { minItems: 0, maxItems: 1 })),
  status: Type.Optional(StatusValue),
  afk: Type.Optional(Type.Boolean()),
});

/** Checks an op 3 payload as the REST routes check theirs; throws the 50035 ApiError. */
export function parsePresenceUpdate(d: unknown): Static<typeof PresenceUpdate> {
  return parseWith(PresenceUpdate, d);
}

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
