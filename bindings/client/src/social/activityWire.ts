import {
  SETTABLE_ACTIVITY_TYPES,
  SocialLimits as L,
  type ActivityPartyPrivacy,
  type ActivityTypes,
  type ActivityWire,
  type StatusDisplayTypes,
} from '@social-layer/protocol';
import { Activity, ActivityAssets, ActivityButton, ActivityParty, ActivitySecrets, ActivityTimestamps } from '../Activity.ts';
import { ClientResultError } from '../ClientResultError.ts';

/**
 * Activity <-> its wire object, and the local checks an activity must pass before it is sent:
 * the server's limits (bindings/protocol SocialLimits), so bad input fails with ValidationError
 * without a round trip.
 */

function length(what: string, value: string | undefined, min: number, max: number): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || value.length < min || value.length > max) {
    throw ClientResultError.validation(`${what} must be ${min}-${max} characters`);
  }
}

function link(what: string, value: string | undefined, min: number, max: number): void {
  if (value === undefined) return;
  length(what, value, min, max);
  let scheme = '';
  try {
    scheme = new URL(value).protocol;
  } catch {
    throw ClientResultError.validation(`${what} must be a URL`);
  }
  if (scheme !== 'http:' && scheme !== 'https:') throw ClientResultError.validation(`${what} must be an http(s) URL`);
}

/** Checks an activity against the documented limits; throws ValidationError naming the field. */
export function checkActivity(activity: unknown): Activity {
  if (!(activity instanceof Activity)) throw ClientResultError.validation('activity must be an Activity');
  if (!SETTABLE_ACTIVITY_TYPES.includes(activity.type())) {
    throw ClientResultError.validation(`activity type must be one of ${SETTABLE_ACTIVITY_TYPES.join(', ')} (Playing, Listening, Watching, Competing)`);
  }
  if (activity.name() !== '') length('name', activity.name(), L.activityNameMinLength, L.activityNameMaxLength);
  const display = activity.statusDisplayType();
  if (display !== undefined && ![0, 1, 2].includes(display)) throw ClientResultError.validation('statusDisplayType must be Name, State or Details');
  length('state', activity.state(), L.activityTextMinLength, L.activityTextMaxLength);
  length('details', activity.details(), L.activityTextMinLength, L.activityTextMaxLength);
  link('stateUrl', activity.stateUrl(), L.activityLinkMinLength, L.activityLinkMaxLength);
  link('detailsUrl', activity.detailsUrl(), L.activityLinkMinLength, L.activityLinkMaxLength);
  const assets = activity.assets();
  if (assets) {
    length('assets.largeImage', assets.largeImage(), L.assetImageMinLength, L.assetImageMaxLength);
    length('assets.smallImage', assets.smallImage(), L.assetImageMinLength, L.assetImageMaxLength);
    length('assets.inviteCoverImage', assets.inviteCoverImage(), L.assetImageMinLength, L.assetImageMaxLength);
    length('assets.largeText', assets.largeText(), L.activityTextMinLength, L.activityTextMaxLength);
    length('assets.smallText', assets.smallText(), L.activityTextMinLength, L.activityTextMaxLength);
    link('assets.largeUrl', assets.largeUrl(), L.assetUrlMinLength, L.assetUrlMaxLength);
    link('assets.smallUrl', assets.smallUrl(), L.assetUrlMinLength, L.assetUrlMaxLength);
  }
  const party = activity.party();
  if (party) {
    length('party.id', party.id() || undefined, L.partyIdMinLength, L.partyIdMaxLength);
    const current = party.currentSize();
    const max = party.maxSize();
    if (!Number.isInteger(current) || !Number.isInteger(max) || max < 0 || (current !== 0 && current < 1) || (max > 0 && current > max)) {
      throw ClientResultError.validation('party size must be whole numbers with 1 <= currentSize <= maxSize (maxSize 0 = no maximum)');
    }
    if (party.privacy() !== 0 && party.privacy() !== 1) throw ClientResultError.validation('party privacy must be Private or Public');
  }
  length('secrets.join', activity.secrets()?.join() || undefined, L.joinSecretMinLength, L.joinSecretMaxLength);
  const buttons = activity.getButtons();
  if (buttons.length > L.activityButtonsMax) throw ClientResultError.validation(`an activity has at most ${L.activityButtonsMax} buttons`);
  buttons.forEach((b, i) => {
    length(`buttons[${i}].label`, b.label(), L.buttonLabelMinLength, L.buttonLabelMaxLength);
    link(`buttons[${i}].url`, b.url(), L.buttonUrlMinLength, L.buttonUrlMaxLength);
  });
  const ts = activity.timestamps();
  for (const [what, v] of [['timestamps.start', ts?.start() ?? 0], ['timestamps.end', ts?.end() ?? 0]] as const) {
    if (!Number.isSafeInteger(v) || v < 0) throw ClientResultError.validation(`${what} must be a non-negative whole number`);
  }
  return activity;
}

/** The wire object sent by updateRichPresence; unset fields are left out. */
export function activityToWire(a: Activity): ActivityWire {
  const out: ActivityWire = { name: a.name(), type: a.type() };
  if (out.name === '') delete (out as Partial<ActivityWire>).name;
  if (a.statusDisplayType() !== undefined) out.status_display_type = a.statusDisplayType()!;
  if (a.state() !== undefined) out.state = a.state()!;
  if (a.stateUrl() !== undefined) out.state_url = a.stateUrl()!;
  if (a.details() !== undefined) out.details = a.details()!;
  if (a.detailsUrl() !== undefined) out.details_url = a.detailsUrl()!;
  const ts = a.timestamps();
  if (ts && (ts.start() || ts.end())) {
    out.timestamps = {};
    if (ts.start()) out.timestamps.start = ts.start();
    if (ts.end()) out.timestamps.end = ts.end();
  }
  const assets = a.assets();
  if (assets) {
    const w: NonNullable<ActivityWire['assets']> = {};
    if (assets.largeImage() !== undefined) w.large_image = assets.largeImage()!;
    if (assets.largeText() !== undefined) w.large_text = assets.largeText()!;
    if (assets.largeUrl() !== undefined) w.large_url = assets.largeUrl()!;
    if (assets.smallImage() !== undefined) w.small_image = assets.smallImage()!;
    if (assets.smallText() !== undefined) w.small_text = assets.smallText()!;
    if (assets.smallUrl() !== undefined) w.small_url = assets.smallUrl()!;
    if (assets.inviteCoverImage() !== undefined) w.invite_cover_image = assets.inviteCoverImage()!;
    if (Object.keys(w).length > 0) out.assets = w;
  }
  const party = a.party();
  if (party) {
    out.party = { privacy: party.privacy() };
    if (party.id()) out.party.id = party.id();
    if (party.currentSize() > 0) out.party.size = [party.currentSize(), party.maxSize()];
  }
  if (a.secrets()?.join()) out.secrets = { join: a.secrets()!.join() };
  const buttons = a.getButtons();
  if (buttons.length > 0) out.buttons = buttons.map((b) => ({ label: b.label(), url: b.url() }));
  if (a.supportedPlatforms()) out.supported_platforms = a.supportedPlatforms();
  return out;
}

/** A fresh Activity from its wire object (what UserHandle.gameActivity returns). */
export function activityFromWire(w: ActivityWire): Activity {
  const a = new Activity();
  a.setName(w.name ?? '');
  a.setType(w.type as ActivityTypes);
  if (w.status_display_type !== undefined && w.status_display_type !== null) a.setStatusDisplayType(w.status_display_type as StatusDisplayTypes);
  if (w.state) a.setState(w.state);
  if (w.state_url) a.setStateUrl(w.state_url);
  if (w.details) a.setDetails(w.details);
  if (w.details_url) a.setDetailsUrl(w.details_url);
  if (w.application_id) a.setApplicationId(w.application_id);
  if (w.parent_application_id) a.setParentApplicationId(w.parent_application_id);
  if (w.timestamps) {
    const ts = new ActivityTimestamps();
    ts.setStart(w.timestamps.start ?? 0);
    ts.setEnd(w.timestamps.end ?? 0);
    a.setTimestamps(ts);
  }
  if (w.assets) {
    const as = new ActivityAssets();
    as.setLargeImage(w.assets.large_image);
    as.setLargeText(w.assets.large_text);
    as.setLargeUrl(w.assets.large_url);
    as.setSmallImage(w.assets.small_image);
    as.setSmallText(w.assets.small_text);
    as.setSmallUrl(w.assets.small_url);
    as.setInviteCoverImage(w.assets.invite_cover_image);
    a.setAssets(as);
  }
  if (w.party) {
    const p = new ActivityParty();
    p.setId(w.party.id ?? '');
    p.setCurrentSize(w.party.size?.[0] ?? 0);
    p.setMaxSize(w.party.size?.[1] ?? 0);
    p.setPrivacy((w.party.privacy ?? 0) as ActivityPartyPrivacy);
    a.setParty(p);
  }
  if (w.secrets?.join) {
    const s = new ActivitySecrets();
    s.setJoin(w.secrets.join);
    a.setSecrets(s);
  }
  for (const b of w.buttons ?? []) {
    const button = new ActivityButton();
    button.setLabel(b.label);
    button.setUrl(b.url ?? '');
    a.addButton(button);
  }
  a.setSupportedPlatforms(w.supported_platforms ?? 0);
  return a;
}
