import { RPC_ACTIVITY_TYPES, RpcErrorCode } from '../codes.ts';
import { RpcError } from '../envelope.ts';

/**
 * SET_ACTIVITY's `activity` as the public RPC clients send it, reduced to the fields the
 * platform's `PUT /users/@me/activities` takes. Client-side extras (`instance`, `created_at`,
 * secrets other than `join`) are dropped; the platform checks every remaining field's limits.
 */
export function activityBody(activity: unknown): Record<string, unknown> {
  if (typeof activity !== 'object' || activity === null || Array.isArray(activity)) throw new RpcError(RpcErrorCode.InvalidPayload, 'activity must be an object');
  const a = activity as Record<string, unknown>;
  const type = a.type ?? 0;
  if (typeof type !== 'number' || !RPC_ACTIVITY_TYPES.includes(type)) {
    throw new RpcError(RpcErrorCode.InvalidPayload, `activity.type must be one of ${RPC_ACTIVITY_TYPES.join(', ')}`);
  }
  const out: Record<string, unknown> = { type };
  for (const key of ['name', 'state', 'details', 'state_url', 'details_url', 'status_display_type', 'timestamps', 'assets', 'party', 'buttons', 'supported_platforms']) {
    if (a[key] !== undefined && a[key] !== null) out[key] = a[key];
  }
  const secrets = a.secrets as Record<string, unknown> | undefined;
  if (secrets && typeof secrets === 'object' && secrets.join !== undefined) out.secrets = { join: secrets.join };
  return out;
}

/** The platform's field errors (400, code 50035) as one RPC message: paths and reasons, never values. */
export function describeFieldErrors(body: any): string {
  const lines: string[] = [];
  const walk = (node: any, path: string) => {
    if (!node || typeof node !== 'object' || lines.length >= 5) return;
    if (Array.isArray(node._errors)) {
      for (const e of node._errors) lines.push(`${path || 'activity'}: ${String(e?.message ?? e?.code ?? 'invalid')}`);
    }
    for (const [k, v] of Object.entries(node)) if (k !== '_errors') walk(v, path ? `${path}.${k}` : `activity.${k}`);
  };
  walk(body?.errors, '');
  return lines.length ? lines.join('; ') : String(body?.message ?? 'Invalid activity');
}
