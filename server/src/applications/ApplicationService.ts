import { ApiError, Errors } from '../errors/ApiError.ts';
import type { UrlPolicy } from '../config/urlPolicy.ts';
import { KNOWN_SCOPES } from '../oauth2/scopes.ts';
import type { ApplicationChanges, ApprovalState, CreatedApplication } from '../storage/ApplicationRepo.ts';
import type { ApplicationsTable } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { publicUserWire } from '../storage/UserRepo.ts';
import { decodeImageDataUri } from './applicationImages.ts';
import { FieldErrors } from './formErrors.ts';
import { enablesLimitedIntent, mayUseLimitedIntents, PRIVILEGED_INTENT_USER_THRESHOLD } from '../guilds/intentApproval.ts';
import type { WebhookPatch, WebhookService, WebhookWire } from '../webhooks/WebhookService.ts';

/**
 * Application flags a developer may change (the public API lets only the "limited" Gateway
 * intent flags be edited; the others are the platform's to set): GATEWAY_PRESENCE_LIMITED,
 * GATEWAY_GUILD_MEMBERS_LIMITED and GATEWAY_MESSAGE_CONTENT_LIMITED.
 */
export const EDITABLE_FLAGS = [
  { bit: 13, name: 'GATEWAY_PRESENCE_LIMITED', label: 'Presence intent' },
  { bit: 15, name: 'GATEWAY_GUILD_MEMBERS_LIMITED', label: 'Server members intent' },
  { bit: 19, name: 'GATEWAY_MESSAGE_CONTENT_LIMITED', label: 'Message content intent' },
] as const;
const EDITABLE_MASK = EDITABLE_FLAGS.reduce((m, f) => m | (1n << BigInt(f.bit)), 0n);
const LOW_32 = 0xffffffffn;

export const MAX_REDIRECT_URIS = 10;
export const MAX_APPLICATIONS_PER_OWNER = 25;
/** Scopes an install link may ask for: the OAuth2 scopes we know and `bot`. */
const INSTALL_SCOPES = new Set([...KNOWN_SCOPES, 'bot']);

/** The public map keyed by integration type: "0" installed to servers, "1" to users. */
export type IntegrationTypesConfig = Record<string, { oauth2_install_params?: { scopes: string[]; permissions: string } }>;

/** The public body of PATCH /applications/@me (RESTPatchCurrentApplicationJSONBody) plus our extensions. */
/** What the interactions slice adds to an application edit and its wire shape (issue 13). */
export interface InteractionEndpointFields {
  prepareEndpoint(applicationId: string, patch: { interactions_endpoint_url?: string | null }, errs: FieldErrors): Promise<(() => Promise<void>) | null>;
  endpointWire(applicationId: string): Promise<{ interactions_endpoint_url: string | null }>;
}

export interface ApplicationPatch extends WebhookPatch {
  /** Issue 13: PING-verified before it is saved; null or "" clears it (interactions go over the Gateway). */
  interactions_endpoint_url?: string | null;
  description?: string;
  icon?: string | null;
  flags?: number;
  tags?: string[];
  integration_types_config?: IntegrationTypesConfig;
  /** Ours: the public API edits these only in its portal. */
  name?: string;
  redirect_uris?: string[];
  public_client?: boolean;
}

/** The application in the public APIApplication shape, with our few extensions (documented in the README). */
export interface ApplicationWire {
  id: string;
  approximate_guild_count: number;
  approximate_user_install_count: number;
  name: string;
  icon: string | null;
  description: string;
  type: null;
  bot_public: boolean;
  bot_require_code_grant: boolean;
  bot?: ReturnType<typeof publicUserWire>;
  owner?: ReturnType<typeof publicUserWire>;
  team: null;
  flags: number;
  flags_new: string;
  redirect_uris: string[];
  tags?: string[];
  integration_types_config?: IntegrationTypesConfig;
  /** Ours: a public client may use PKCE and device IDs without a secret. */
  public_client: boolean;
  /** Ours: the social SDK switch and the approval state that picks the rate budgets. */
  social_sdk: { enabled: boolean; approval: ApprovalState };
  /** Ours: the portal toggle that gives every bot session obfuscated channels (as Identify capability 1<<15). */
  channel_obfuscation: boolean;
  /** The webhook fields (issue 15): verify_key, event_webhooks_url/_status/_types, and ours, event_webhooks_last_error. */
  verify_key?: WebhookWire['verify_key'];
  event_webhooks_url?: WebhookWire['event_webhooks_url'];
  event_webhooks_status?: WebhookWire['event_webhooks_status'];
  event_webhooks_types?: WebhookWire['event_webhooks_types'];
  event_webhooks_last_error?: string;
  /** Issue 13: where interactions are POSTed (signed); null: over the Gateway. */
  interactions_endpoint_url?: string | null;
  /** Fields the public object always carries, for what this platform has none of (linked roles, content filter, scope eligibility). */
  role_connections_verification_url: null;
  approximate_user_authorization_count: number;
  explicit_content_filter: 0;
  eligible_oauth2_scopes: string[];
}

/** Developer-facing application rules, shared by the REST routes, the portal and the admin CLI. */
export class ApplicationService {
  /** `webhooks` (startServer) validates, PINGs and saves the event_webhooks_* fields of an edit (issue 15); the CLI has none. */
  constructor(
    private readonly store: Store,
    private readonly urls: UrlPolicy,
    readonly webhooks: Pick<WebhookService, 'prepare' | 'wire' | 'resend'> | null = null,
    /** The interactions endpoint URL (issue 13): checked and PING-verified with the rest of an edit; the CLI has none. */
    readonly interactions: InteractionEndpointFields | null = null,
  ) {}

  /** An application made in the portal: owned by its creator, and in pre-approval. */
  async createOwned(ownerId: string, name: string): Promise<CreatedApplication> {
    const errs = new FieldErrors();
    checkName(name, errs);
    errs.throwIfAny();
    if ((await this.store.applications.listByOwner(ownerId)).length >= MAX_APPLICATIONS_PER_OWNER) {
      throw new ApiError(400, 30001, `Maximum number of applications reached (${MAX_APPLICATIONS_PER_OWNER})`);
    }
    return this.store.applications.create(name.trim(), { ownerId, approval: 'pre_approval' });
  }

  async get(id: string): Promise<ApplicationsTable> {
    const app = /^\d{1,20}$/.test(id) ? await this.store.applications.get(id) : undefined;
    if (!app || app.first_party === 1) throw Errors.unknownApplication();
    return app;
  }

  /** The application if `userId` owns it; otherwise the same 404 as an unknown one. */
  async getOwned(id: string, userId: string): Promise<ApplicationsTable> {
    const app = await this.get(id);
    if (app.owner_id !== userId) throw Errors.unknownApplication();
    return app;
  }

  listOwned(userId: string): Promise<ApplicationsTable[]> {
    return this.store.applications.listByOwner(userId);
  }

  /**
   * Checks every field first and writes nothing unless all pass; then applies them in one
   * transaction. Fields we do not know are ignored, as the public API does.
   */
  async update(id: string, patch: ApplicationPatch): Promise<ApplicationsTable> {
    const app = await this.get(id);
    const errs = new FieldErrors();
    const changes: ApplicationChanges = {};
    if (patch.name !== undefined) {
      checkName(patch.name, errs);
      changes.name = patch.name.trim();
    }
    if (patch.description !== undefined) {
      if (patch.description.length > 400) errs.add(['description'], 'BASE_TYPE_MAX_LENGTH', 'Must be 400 or fewer in length.');
      changes.description = patch.description;
    }
    if (patch.icon !== undefined) {
      if (patch.icon === null) changes.icon = null;
      else {
        const img = decodeImageDataUri(patch.icon);
        if (img.ok) changes.icon = { hash: img.hash, data: img.dataUri };
        else errs.add(['icon'], img.code, img.message);
      }
    }
    if (patch.flags !== undefined) {
      const current = BigInt(app.flags_new ?? '0');
      const wanted = BigInt(patch.flags);
      if (((current & LOW_32) ^ wanted) & ~EDITABLE_MASK) {
        errs.add(['flags'], 'APPLICATION_FLAGS_INVALID', `Only these flags can be changed: ${EDITABLE_FLAGS.map((f) => f.name).join(', ')}.`);
      }
      // Bits above 32 are kept: `flags` carries only the low 32 bits.
      changes.flagsNew = (current & ~LOW_32) | wanted;
      // At 10,000 users a privileged intent needs an operator's approval (issue 10, intentApproval.ts).
      if (enablesLimitedIntent(current, wanted) && !(await mayUseLimitedIntents(this.store, id))) {
        errs.add(['flags'], 'APPLICATION_INTENTS_APPROVAL_REQUIRED', `At ${PRIVILEGED_INTENT_USER_THRESHOLD} users or more, privileged intents need approval.`);
      }
    }
    if (patch.tags !== undefined) {
      if (patch.tags.length > 5) errs.add(['tags'], 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.');
      patch.tags.forEach((t, i) => {
        if (t.length < 1 || t.length > 20) errs.add(['tags', i], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 20 in length.');
      });
      changes.tags = patch.tags;
    }
    if (patch.integration_types_config !== undefined) {
      for (const [key, cfg] of Object.entries(patch.integration_types_config)) {
        if (key !== '0' && key !== '1') {
          errs.add(['integration_types_config', key], 'BASE_TYPE_CHOICES', 'Value must be one of {0, 1}.');
          continue;
        }
        const permissions = cfg.oauth2_install_params?.permissions;
        if (permissions !== undefined && !/^[0-9]{1,20}$/.test(permissions)) {
          errs.add(['integration_types_config', key, 'oauth2_install_params', 'permissions'], 'NUMBER_TYPE_COERCE', `Value "${permissions}" is not snowflake.`);
        }
        const scopes = cfg.oauth2_install_params?.scopes ?? [];
        scopes.forEach((s, i) => {
          if (!INSTALL_SCOPES.has(s)) errs.add(['integration_types_config', key, 'oauth2_install_params', 'scopes', i], 'BASE_TYPE_CHOICES', `Unknown scope: ${s}.`);
        });
        if (key === '1' && scopes.includes('bot')) {
          errs.add(['integration_types_config', key, 'oauth2_install_params', 'scopes'], 'BASE_TYPE_CHOICES', 'User installs cannot request the bot scope.');
        }
      }
      changes.integrationTypesConfig = patch.integration_types_config;
    }
    if (patch.redirect_uris !== undefined) {
      if (patch.redirect_uris.length > MAX_REDIRECT_URIS) errs.add(['redirect_uris'], 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_REDIRECT_URIS} or fewer in length.`);
      patch.redirect_uris.forEach((uri, i) => {
        const v = this.urls.check('redirect_uri', uri);
        if (!v.ok) errs.add(['redirect_uris', i], v.code, v.message);
      });
      changes.redirectUris = patch.redirect_uris;
    }
    if (patch.public_client !== undefined) changes.publicClient = patch.public_client;
    // Checked with the rest, so one 50035 names every problem; saved only if the whole edit is valid.
    const commitWebhooks = this.webhooks ? await this.webhooks.prepare(id, patch, errs) : null;
    const commitEndpoint = this.interactions ? await this.interactions.prepareEndpoint(id, patch, errs) : null;
    errs.throwIfAny();
    await this.store.applications.update(id, changes);
    await commitWebhooks?.();
    await commitEndpoint?.();
    return (await this.store.applications.get(id))!;
  }

  resetClientSecret(id: string): Promise<string> {
    return this.store.applications.resetClientSecret(id);
  }

  resetBotToken(id: string): Promise<string> {
    return this.store.applications.resetBotToken(id);
  }

  /** The portal toggle: bot sessions that Identify from now on get obfuscated channels (guilds/GuildGateway.ts). */
  async setChannelObfuscation(id: string, on: boolean): Promise<void> {
    await this.get(id);
    await this.store.applications.update(id, { channelObfuscation: on });
  }

  // ---- approval (see approval.ts for what it changes) ----

  async enableSocialSdk(id: string): Promise<void> {
    await this.get(id);
    await this.store.applications.update(id, { socialSdk: true });
  }

  /** The developer asks for production budgets; only an application using the social SDK may. */
  async requestProductionAccess(id: string): Promise<ApprovalState> {
    const app = await this.get(id);
    if (app.approval === 'approved') return 'approved';
    if (app.social_sdk !== 1) throw Errors.invalidForm({ _errors: [{ code: 'SOCIAL_SDK_NOT_ENABLED', message: 'Enable the social SDK first.' }] });
    await this.store.applications.setApproval(id, 'requested');
    return 'requested';
  }

  /** The operator's decision (`social-layer apps approve`): production budgets from now on. */
  async approve(id: string): Promise<ApplicationsTable> {
    await this.get(id);
    await this.store.applications.setApproval(id, 'approved');
    return (await this.store.applications.get(id))!;
  }

  async toWire(app: ApplicationsTable): Promise<ApplicationWire> {
    const [redirectUris, users, guildCount, userInstallCount] = await Promise.all([
      this.store.oauth.redirectUris(app.id),
      this.store.users.getMany([app.bot_user_id, ...(app.owner_id ? [app.owner_id] : [])]),
      this.store.guildMembers.guildCountOf(app.bot_user_id),
      this.store.oauth.authorizationCount(app.id),
    ]);
    const bot = users.get(app.bot_user_id);
    const owner = app.owner_id ? users.get(app.owner_id) : undefined;
    const flagsNew = BigInt(app.flags_new ?? '0');
    return {
      id: app.id,
      name: app.name,
      icon: app.icon ?? null,
      description: app.description ?? '',
      type: null,
      bot_public: false,
      bot_require_code_grant: false,
      ...(bot ? { bot: publicUserWire(bot) } : {}),
      ...(owner ? { owner: publicUserWire(owner) } : {}),
      team: null,
      flags: Number(flagsNew & LOW_32),
      flags_new: flagsNew.toString(),
      redirect_uris: redirectUris.sort(),
      ...(app.tags ? { tags: JSON.parse(app.tags) as string[] } : {}),
      ...(app.integration_types_config ? { integration_types_config: JSON.parse(app.integration_types_config) as IntegrationTypesConfig } : {}),
      public_client: app.public_client === 1,
      // Counted when asked: exact here, "approximate" in the public contract (a cache may lag).
      approximate_guild_count: guildCount,
      approximate_user_install_count: userInstallCount,
      approximate_user_authorization_count: userInstallCount,
      role_connections_verification_url: null,
      explicit_content_filter: 0,
      // No scope here needs an eligibility grant beyond approval (PRIVILEGED_SCOPES follow it).
      eligible_oauth2_scopes: [],
      social_sdk: { enabled: app.social_sdk === 1, approval: (app.approval ?? 'approved') as ApprovalState },
      channel_obfuscation: app.channel_obfuscation === 1,
      ...(this.webhooks ? await this.webhooks.wire(app.id) : {}),
      ...(this.interactions ? await this.interactions.endpointWire(app.id) : {}),
    };
  }
}

function checkName(name: string, errs: FieldErrors): void {
  const n = name.trim();
  if (n.length < 2 || n.length > 100) errs.add(['name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 2 and 100 in length.');
}
