import { ApplicationService } from '../applications/ApplicationService.ts';
import { UrlPolicy } from '../config/urlPolicy.ts';
import { ApiError } from '../errors/ApiError.ts';
import type { Store } from '../storage/Store.ts';
import { type CliCommand, CliUsageError, printJson, snowflakeOption } from './command.ts';
import { DATA_OPTIONS, DATA_USAGE, withStore } from './operatorStore.ts';
import { ActivityService } from '../activities/ActivityService.ts';
import { type ActivityOrientation, type ActivityPlatform, parseMappingOption, type UrlMapping } from '../activities/activitySettings.ts';

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
  usage: `apps update --app ID [--redirect-uri URI]... [--public true|false]
      [--activities true|false] [--url-mapping PREFIX=TARGET]... [--platform web|android|ios]...
      [--orientation unlocked|portrait|landscape] [--dev] ${DATA_USAGE}
      Sets the application's redirect URIs (the ones given replace the list) and client type, and
      prints the application as JSON (GET /applications/@me's shape). URIs follow the production
      rules unless --dev (or SOCIAL_LAYER_DEV=1) allows http ones. The activity options
      enable the embedded app and set its URL mappings (the ones given replace the list; / is the
      root mapping), platforms and orientation; the output then carries "activities".`,
  options: {
    app: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    public: { type: 'string' },
    activities: { type: 'string' },
    'url-mapping': { type: 'string', multiple: true },
    platform: { type: 'string', multiple: true },
    orientation: { type: 'string' },
    dev: { type: 'boolean' },
    ...DATA_OPTIONS,
  },
  async run(values, io) {
    const id = snowflakeOption(values, 'app');
    const uris = values['redirect-uri'] as string[] | undefined;
    const publicClient = parseBool(values.public, 'public');
    const activitiesOn = parseBool(values.activities, 'activities');
    const mappingTexts = values['url-mapping'] as string[] | undefined;
    const platforms = values.platform as string[] | undefined;
    const orientation = values.orientation as string | undefined;
    const mappings: UrlMapping[] | undefined = mappingTexts?.map((t) => {
      const m = parseMappingOption(t);
      if (!m) throw new CliUsageError(`--url-mapping takes PREFIX=TARGET (got ${JSON.stringify(t)})`);
      return m;
    });
    const activityEdit = activitiesOn !== undefined || mappings !== undefined || platforms !== undefined || orientation !== undefined;
    if (uris === undefined && publicClient === undefined && !activityEdit) throw new CliUsageError('apps update needs --redirect-uri, --public or an activity option');
    const wire = await withApplications(values, async (apps, store) => {
      const activities = new ActivityService(store, new UrlPolicy(devMode(values)));
      const activityPatch = {
        ...(activitiesOn !== undefined ? { enabled: activitiesOn } : {}),
        ...(mappings ? { url_mappings: mappings } : {}),
        ...(platforms ? { supported_platforms: platforms as ActivityPlatform[] } : {}),
        ...(orientation !== undefined ? { orientation: orientation as ActivityOrientation } : {}),
      };
      // Bad activity settings refuse the whole command before anything is written.
      if (activityEdit) await activities.checkSettings(id, activityPatch);
      let row = await apps.get(id);
      if (uris !== undefined || publicClient !== undefined) row = await apps.update(id, { ...(uris ? { redirect_uris: uris } : {}), ...(publicClient !== undefined ? { public_client: publicClient } : {}) });
      const out: Record<string, unknown> = { ...(await apps.toWire(row)) };
      if (activityEdit) {
        out.activities = await activities.updateSettings(id, activityPatch);
      }
      return out;
    });
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

