import { CommerceEvents, CommerceService } from '../commerce/index.ts';
import { LocalEventBus } from '../events/EventBus.ts';
import { ApiError } from '../errors/ApiError.ts';
import { type CliCommand, CliUsageError, printJson, requireString, snowflakeOption } from './command.ts';
import { DATA_OPTIONS, DATA_USAGE, withStore } from './operatorStore.ts';

const TYPES = ['durable', 'consumable', 'subscription'] as const;

export const skusCreate: CliCommand = {
  words: ['skus', 'create'],
  usage: `skus create --app ID --name NAME --type durable|consumable|subscription --price CENTS [--period DAYS] ${DATA_USAGE}
      Creates a SKU for the application and prints it as JSON in the public shape (GET
      /applications/{id}/skus). Subscriptions renew every --period days (default 30).`,
  options: { app: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' }, price: { type: 'string' }, period: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const appId = snowflakeOption(values, 'app');
    const name = requireString(values, 'name', 'NAME');
    const type = requireString(values, 'type', 'durable|consumable|subscription');
    if (!(TYPES as readonly string[]).includes(type)) throw new CliUsageError(`--type must be one of ${TYPES.join(', ')}, not ${JSON.stringify(type)}`);
    const price = requireString(values, 'price', 'CENTS');
    if (!/^\d{1,8}$/.test(price)) throw new CliUsageError(`--price must be a whole number of cents, not ${JSON.stringify(price)}`);
    const period = values.period;
    if (period !== undefined && (typeof period !== 'string' || !/^\d{1,3}$/.test(period))) throw new CliUsageError('--period must be a whole number of days');
    if (period !== undefined && type !== 'subscription') throw new CliUsageError('--period is for subscription SKUs only');
    const sku = await withStore(values, async (store) => {
      if (!(await store.applications.get(appId))) throw new CliUsageError(`unknown application ${appId}`);
      // SKU creation publishes nothing: a bus with no listeners is enough here.
      const commerce = new CommerceService(store, new CommerceEvents(store, new LocalEventBus()));
      try {
        return await commerce.createSku(appId, { name, type: type as (typeof TYPES)[number], price: Number(price), ...(period !== undefined ? { billingPeriodDays: Number(period) } : {}) });
      } catch (err) {
        if (err instanceof ApiError && err.status < 500) throw new CliUsageError(JSON.stringify(err.body()));
        throw err;
      }
    });
    printJson(io, sku);
    return 0;
  },
};
