import { FieldErrors } from '../applications/formErrors.ts';
import type { UrlPolicy } from '../config/urlPolicy.ts';

/** One URL mapping: requests under `prefix` on the proxy host go to `target` (host[:port][/path], https implied, or a full http(s) URL). */
export interface UrlMapping {
  prefix: string;
  target: string;
}

export type ActivityPlatform = 'web' | 'android' | 'ios';
export const ACTIVITY_PLATFORMS: readonly ActivityPlatform[] = ['web', 'android', 'ios'];
export type ActivityOrientation = 'unlocked' | 'portrait' | 'landscape';
export const ACTIVITY_ORIENTATIONS: readonly ActivityOrientation[] = ['unlocked', 'portrait', 'landscape'];

/** An application's activity settings as the portal, the CLI and the web app read them. */
export interface ActivitySettings {
  enabled: boolean;
  /** The root mapping (`/`) first, then the extra prefixes, longest first. */
  url_mappings: UrlMapping[];
  supported_platforms: ActivityPlatform[];
  orientation: ActivityOrientation;
}

export const DEFAULT_ACTIVITY_SETTINGS: ActivitySettings = { enabled: false, url_mappings: [], supported_platforms: ['web'], orientation: 'unlocked' };

/** Our limit: the public portal does not document one; 25 prefixes is room for a game and its services. */
export const MAX_URL_MAPPINGS = 25;
export const MAX_PREFIX_LENGTH = 100;

/**
 * A prefix is `/` or slash-separated segments of unreserved URL characters. No `.`/`..` segments,
 * no percent signs (an encoded slash could not then be smuggled into one), and not `/.proxy`,
 * which the proxy host strips before matching.
 */
const PREFIX = /^\/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*)?$/;

export function normalizePrefix(prefix: string): string {
  const p = prefix.trim();
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

/** The target as a base URL without a trailing slash: `https://host[:port][/path]`. */
export function targetBase(target: string): URL {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? target : `https://${target}`;
  const url = new URL(text);
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url;
}

/**
 * Checks a whole settings edit and reports every problem at once (50035 tree, e.g.
 * `errors.url_mappings.1.target`). Enabling needs the root mapping: the activity is loaded from it.
 */
export function checkActivitySettings(input: ActivitySettings, urls: UrlPolicy): ActivitySettings {
  const errs = new FieldErrors();
  if (input.url_mappings.length > MAX_URL_MAPPINGS) errs.add(['url_mappings'], 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_URL_MAPPINGS} or fewer in length.`);
  const seen = new Set<string>();
  const mappings: UrlMapping[] = [];
  input.url_mappings.forEach((m, i) => {
    const prefix = normalizePrefix(m.prefix);
    if (prefix.length === 0 || prefix.length > MAX_PREFIX_LENGTH || !PREFIX.test(prefix)) {
      errs.add(['url_mappings', i, 'prefix'], 'ACTIVITY_URL_MAPPING_PREFIX_INVALID', 'A prefix is / or path segments of letters, digits and - . _ ~ (no . or .. segments).');
    } else if (prefix === '/.proxy' || prefix.startsWith('/.proxy/')) {
      errs.add(['url_mappings', i, 'prefix'], 'ACTIVITY_URL_MAPPING_PREFIX_INVALID', '/.proxy is reserved: the proxy host accepts every path with and without it.');
    } else if (seen.has(prefix)) {
      errs.add(['url_mappings', i, 'prefix'], 'ACTIVITY_URL_MAPPING_PREFIX_DUPLICATE', 'Each prefix may appear once.');
    }
    seen.add(prefix);
    const target = m.target.trim();
    const verdict = urls.check('activity_url_mapping', target);
    if (!verdict.ok) errs.add(['url_mappings', i, 'target'], verdict.code, verdict.message);
    else if (/[?#%\\]/.test(target)) errs.add(['url_mappings', i, 'target'], 'URL_TYPE_INVALID_URL', 'A target is a host with an optional path: no query, fragment or escapes.');
    mappings.push({ prefix, target });
  });
  if (input.enabled && !seen.has('/')) errs.add(['url_mappings'], 'ACTIVITY_ROOT_MAPPING_REQUIRED', 'An enabled activity needs the root mapping (/), the origin its page loads from.');
  const platforms = [...new Set(input.supported_platforms)];
  if (platforms.length === 0) errs.add(['supported_platforms'], 'BASE_TYPE_MIN_LENGTH', 'Pick at least one platform.');
  platforms.forEach((p, i) => {
    if (!ACTIVITY_PLATFORMS.includes(p)) errs.add(['supported_platforms', i], 'BASE_TYPE_CHOICES', `Value must be one of ${ACTIVITY_PLATFORMS.join(', ')}.`);
  });
  if (!ACTIVITY_ORIENTATIONS.includes(input.orientation)) errs.add(['orientation'], 'BASE_TYPE_CHOICES', `Value must be one of ${ACTIVITY_ORIENTATIONS.join(', ')}.`);
  errs.throwIfAny();
  // Longest prefix first: the first match is the most specific one.
  mappings.sort((a, b) => (a.prefix === '/' ? 1 : b.prefix === '/' ? -1 : b.prefix.length - a.prefix.length));
  return { enabled: input.enabled, url_mappings: mappings, supported_platforms: platforms, orientation: input.orientation };
}

/** `PREFIX=TARGET` of the CLI's `--url-mapping`. */
export function parseMappingOption(text: string): UrlMapping | undefined {
  const i = text.indexOf('=');
  if (i <= 0) return undefined;
  return { prefix: text.slice(0, i), target: text.slice(i + 1) };
}

/**
 * Which mapping serves `path` (already stripped of `/.proxy`): the longest prefix that equals the
 * path or is followed by `/` in it. The root mapping serves the rest.
 */
export function matchMapping(mappings: readonly UrlMapping[], path: string): { mapping: UrlMapping; rest: string } | undefined {
  let best: UrlMapping | undefined;
  for (const m of mappings) {
    const hit = m.prefix === '/' || path === m.prefix || path.startsWith(`${m.prefix}/`);
    if (hit && (!best || best.prefix === '/' || (m.prefix !== '/' && m.prefix.length > best.prefix.length))) best = m;
  }
  if (!best) return undefined;
  return { mapping: best, rest: best.prefix === '/' ? path : path.slice(best.prefix.length) };
}
