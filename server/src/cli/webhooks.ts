import { type CliCommand, CliUsageError, printJson, snowflakeOption } from './command.ts';
import { DATA_OPTIONS, DATA_USAGE, withStore } from './operatorStore.ts';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: an ISO 8601 time (2026-11-23T20:00:00Z) or a span back from now (90m, 6h, 2d). */
export function parseSince(value: string, now = Date.now()): number {
  const span = /^(\d{1,6})([smhd])$/.exec(value);
  if (span) return now - Number(span[1]) * UNITS[span[2]!]!;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const at = Date.parse(value);
    if (!Number.isNaN(at)) return at;
  }
  throw new CliUsageError(`--since must be an ISO 8601 time or a span like 90m, 6h, 2d; not ${JSON.stringify(value)}`);
}

/**
 * The operator's replay (issue 15): every webhook event of an application recorded since a time
 * goes back into the outbox with its original id, so the delivery worker of a running server
 * sends it again (receivers that already have it drop it by id).
 */
export const webhooksReplay: CliCommand = {
  words: ['webhooks', 'replay'],
  usage: `webhooks replay --app ID --since TIME ${DATA_USAGE}
      Sends an application's webhook events again, from TIME (ISO 8601, or a span back from now:
      90m, 6h, 2d), with their original ids. A running server delivers them within a moment.
      Prints {application_id, since, requeued}.`,
  options: { app: { type: 'string' }, since: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const appId = snowflakeOption(values, 'app');
    if (typeof values.since !== 'string') throw new CliUsageError('--since TIME is required');
    const since = parseSince(values.since.trim());
    const requeued = await withStore(values, async (store) => {
      if (!(await store.applications.get(appId))) throw new CliUsageError(`unknown application ${appId}`);
      return store.webhookEvents.requeue(appId, { since });
    });
    printJson(io, { application_id: appId, since: new Date(since).toISOString(), requeued });
    return 0;
  },
};
