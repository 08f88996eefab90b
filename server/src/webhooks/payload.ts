/**
 * The public envelope of webhook events (protocols.md 7): `type` 0 is a PING with no event,
 * 1 an event with its type, ISO timestamp and data. `id` is ours: the outbox row's snowflake,
 * the same on every attempt, so a receiver can drop a duplicate (delivery is at least once).
 */
export const WebhookType = { Ping: 0, Event: 1 } as const;

export interface WebhookEnvelope {
  version: 1;
  application_id: string;
  type: (typeof WebhookType)[keyof typeof WebhookType];
  id?: string;
  event?: { type: string; timestamp: string; data?: unknown };
}

/** Every event type a webhook can subscribe to (`event_webhooks_types`). */
export const WebhookEventTypes = [
  'APPLICATION_AUTHORIZED',
  'APPLICATION_DEAUTHORIZED',
  'ENTITLEMENT_CREATE',
  'ENTITLEMENT_UPDATE',
  'ENTITLEMENT_DELETE',
  'QUEST_USER_ENROLLMENT',
  'LOBBY_MESSAGE_CREATE',
  'LOBBY_MESSAGE_UPDATE',
  'LOBBY_MESSAGE_DELETE',
  'GAME_DIRECT_MESSAGE_CREATE',
  'GAME_DIRECT_MESSAGE_UPDATE',
  'GAME_DIRECT_MESSAGE_DELETE',
] as const;
export type WebhookEventType = (typeof WebhookEventTypes)[number];

export function pingBody(applicationId: string): string {
  const envelope: WebhookEnvelope = { version: 1, application_id: applicationId, type: WebhookType.Ping };
  return JSON.stringify(envelope);
}

export function eventBody(row: { id: string; application_id: string; type: string; data: string; created_at: number | string }): string {
  // `data` is stored as JSON already: splice it in rather than parse and re-serialize each attempt.
  const head = JSON.stringify({ version: 1, application_id: row.application_id, type: WebhookType.Event, id: row.id });
  const event = `{"type":${JSON.stringify(row.type)},"timestamp":${JSON.stringify(new Date(Number(row.created_at)).toISOString())},"data":${row.data}}`;
  return `${head.slice(0, -1)},"event":${event}}`;
}
