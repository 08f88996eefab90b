import { ApplicationService } from '../applications/ApplicationService.ts';
import { UrlPolicy } from '../config/urlPolicy.ts';
import { ApiError } from '../http/ApiError.ts';
import type { Store } from '../storage/Store.ts';
import { type CliCommand, CliUsageError, printJson, snowflakeOption } from './command.ts';
import { DATA_OPTIONS, DATA_USAGE, withStore } from './operatorStore.ts';

/** Development mode for URL checks: `--dev` or SOCIAL_LAYER_DEV=1, as the server. */
export function devMode(values: Record<string, unknown>): boolean {
  return values.dev === true || process.env.SOCIAL_LAYER_DEV === '1';
}

/** The service's refusals as the CLI reports them: the public 50035 body on stderr, exit 2. */
async function withApplications<T>(values: Record<string, unknown>, fn: (apps: ApplicationService, store: Store) => Promise<T>): Promise<T> {
  return withStore(values, async (store) => {
    try {
      return await fn(new ApplicationService(store, new UrlPolicy(devMode(values))), store);
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) throw new CliUsageError(JSON.stringify(err.body()));
      throw err;
    }
  });
}

export const appsCreate: CliCommand = {
  words: ['apps', 'create'],
  usage: `apps create --name NAME ${DATA_USAGE}
      Creates an application (approved: an operator made it) and prints its id, client secret and
      bot token as JSON. The secrets are shown only now.`,
  options: { name: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const name = typeof values.name === 'string' ? values.name.trim() : '';
    if (!name || name.length > 100) throw new CliUsageError('apps create needs --name NAME (1 to 100 characters)');
    const app = await withStore(values, (store) => store.applications.create(name));
    printJson(io, { id: app.id, name: app.name, client_secret: app.clientSecret, bot_token: app.botToken });
    return 0;
  },
};

function parseBool(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new CliUsageError(`--${name} takes true or false`);
}

export const appsUpdate: CliCommand = {
  words: ['apps', 'update'],
  usage: `apps update --app ID [--redirect-uri URI]... [--public true|false] [--dev] ${DATA_USAGE}
      Sets the application's redirect URIs (the ones given replace the list) and client type, and
      prints the application as JSON (GET /applications/@me's shape). URIs follow the production
      rules unless --dev (or SOCIAL_LAYER_DEV=1) allows http ones.`,
  options: { app: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, public: { type: 'string' }, dev: { type: 'boolean' }, ...DATA_OPTIONS },
  async run(values, io) {
    const id = snowflakeOption(values, 'app');
    const uris = values['redirect-uri'] as string[] | undefined;
    const publicClient = parseBool(values.public, 'public');
    if (uris === undefined && publicClient === undefined) throw new CliUsageError('apps update needs --redirect-uri or --public');
    const wire = await withApplications(values, async (apps) =>
      apps.toWire(await apps.update(id, { ...(uris ? { redirect_uris: uris } : {}), ...(publicClient !== undefined ? { public_client: publicClient } : {}) })),
    );
    printJson(io, wire);
    return 0;
  },
};

export const appsApprove: CliCommand = {
  words: ['apps', 'approve'],
  usage: `apps approve --app ID ${DATA_USAGE}
      Grants production access: the application's lobby, message and channel-linking writes leave
      the pre-approval budgets. Prints the application as JSON.`,
  options: { app: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const id = snowflakeOption(values, 'app');
    printJson(io, await withApplications(values, async (apps) => apps.toWire(await apps.approve(id))));
    return 0;
  },
};

