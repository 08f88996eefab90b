// Fields of ours that the public document does not name, allowed on purpose. Each entry says why
// a client gains from the field or at least loses nothing; anything else the suite finds is a
// difference to fix (or, while it is not fixed yet, a known gap listed in the suite).

export interface AllowedField {
  /** `Schema.field`, the component schema that owns the object and the field's name. */
  field: string;
  reason: string;
}

export const ALLOWED_FIELDS: readonly AllowedField[] = [];

/** Whether a problem reported for `route` is an allowed extra field. */
export function isAllowed(_route: string, what: string): boolean {
  return ALLOWED_FIELDS.some((a) => what.startsWith(`unknown field ${a.field} `));
}
