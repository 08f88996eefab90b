import { randomBytes } from 'node:crypto';
import type { APIMessage } from 'discord-api-types/v10';
import { type EventBus, userTopic } from '../events/EventBus.ts';
import type { Logger } from '../log/Logger.ts';
import type { Store } from '../storage/Store.ts';
import { type InteractionRepo, hashToken } from '../storage/InteractionRepo.ts';
import { PrivateChannelRepo } from '../storage/PrivateChannelRepo.ts';
import type { ApplicationCommandsTable, InteractionsTable } from '../storage/interactionSchema.ts';
import type { ApplicationsTable } from '../storage/schema.ts';
import type { CommerceService } from '../commerce/index.ts';
import { FieldErrors } from '../applications/formErrors.ts';
import { GuildView, viewChannel } from '../guilds/GuildAccess.ts';
import { channelWire, memberWire, userWire } from '../guilds/guildWire.ts';
import { has, Permission } from '../guilds/permissions.ts';
import { attachmentSizeLimitFor } from '../messages/attachmentLimits.ts';
import { messageWire } from '../messages/messageWire.ts';
import { ApiError, Errors } from '../errors/ApiError.ts';
import type { SafeFetchOptions } from '../webhooks/safeFetch.ts';
import type { UrlPolicy } from '../config/urlPolicy.ts';
import { CommandService, commandWire } from './CommandService.ts';
import { ChannelType, privateChannelsFor } from '../messages/privateChannels.ts';
import { CommandType } from './commandRules.ts';
import { InteractionErrors as E } from './interactionErrors.ts';
import { InteractionMessages, type Upload } from './InteractionMessages.ts';
import { InteractionEndpoint } from './InteractionEndpoint.ts';
import { InteractionResponses } from './InteractionResponses.ts';
import { CommandOptions } from './commandOptions.ts';
import { checkModal, checkSubmission, fileTypeAllowed, ModalComponent } from './modalComponents.ts';
import { CallbackType, InteractionContext, InteractionType } from './interactionWire.ts';

export interface InteractionOptions {
  /** Development mode: the interactions endpoint may be http and loopback. */
  dev: boolean;
  /** The first response's deadline (public: 3 s). Tests shorten it. */
  responseDeadlineMs?: number;
  /** How long the token works for follow-ups and edits (public: 15 minutes). */
  tokenLifetimeMs?: number;
  /** DNS for the endpoint's safe fetch (tests). */
  resolve?: SafeFetchOptions['resolve'];
  /** The data folder (attachments of responses are stored with channel messages' files) and the public origin (their URLs). */
  dataDir?: string;
  publicUrl?: () => string;
}

/** Who invokes: a signed-in user, through a token of `applicationId` (the web app's, or a game's). */
export interface Invoker {
  userId: string;
  applicationId: string;
  locale?: string;
}

/** What the web app sends to invoke (the public client's `POST /interactions`, with a values map for modals). */
export interface InvokeBody {
  type: number;
  application_id?: string;
  guild_id?: string;
  channel_id: string;
  message_id?: string;
  nonce?: string;
  data?: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const SNOWFLAKE = /^\d{1,20}$/;
const SELECT_TYPES = new Set([3, 5, 6, 7, 8]);

/**
 * Interactions (issue 13): builds the interaction a user starts (command, context menu, component,
 * modal submit, autocomplete), delivers it (INTERACTION_CREATE to the bot's Gateway sessions, or a
 * signed POST to the interactions endpoint), takes the first response within the deadline, and
 * serves the token's webhook routes (original response, follow-ups) for 15 minutes.
 */
export class InteractionService {
  readonly commands: CommandService;
  readonly repo: InteractionRepo;
  readonly messages: InteractionMessages;
  readonly deadlineMs: number;
  readonly tokenLifetimeMs: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly endpoint: InteractionEndpoint;
  private readonly responses: InteractionResponses;
  private readonly commandOptions: CommandOptions;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly commerce: CommerceService,
    private readonly urlPolicy: UrlPolicy,
    private readonly log: Logger,
    private readonly options: InteractionOptions,
  ) {
    this.commands = new CommandService(store);
    this.repo = this.commands.repo;
    this.messages = new InteractionMessages(store, bus, this.repo, { ...(options.dataDir ? { dataDir: options.dataDir } : {}), ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}) });
    this.deadlineMs = options.responseDeadlineMs ?? 3000;
    this.tokenLifetimeMs = options.tokenLifetimeMs ?? 15 * 60_000;
    this.endpoint = new InteractionEndpoint(store, this.repo, urlPolicy, options, this.deadlineMs);
    this.responses = new InteractionResponses(store, this.repo, this.messages, (row, t, d) => this.toUser(row, t, d), this);
    this.commandOptions = new CommandOptions(store, bus);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.sweeper) clearInterval(this.sweeper);
  }

  private sweeper: NodeJS.Timeout | undefined;

  /**
   * The deadline timer lives on the node that delivered the interaction; a node that dies within
   * those seconds would leave it pending. Every node sweeps pending interactions past the deadline
   * (with a margin) and fails them, so the user still hears INTERACTION_FAILURE.
   */
  startSweeper(intervalMs = 5_000): void {
    this.sweeper = setInterval(() => void this.sweep().catch((err) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'interaction sweep failed')), intervalMs);
    this.sweeper.unref();
  }

  /** Fails what is still pending `deadline + margin` after it was made; returns how many. */
  async sweep(now = Date.now(), marginMs = 2_000): Promise<number> {
    const stale = await this.repo.pendingBefore(now - this.deadlineMs - marginMs);
    let n = 0;
    for (const row of stale) {
      if (await this.repo.fail(row.id)) {
        n++;
        this.toUser(row, 'INTERACTION_FAILURE', { id: row.id, nonce: row.nonce });
      }
    }
    return n;
  }

  // ---- the interactions endpoint (InteractionEndpoint.ts) ----

  endpointWire(applicationId: string): Promise<{ interactions_endpoint_url: string | null }> {
    return this.endpoint.endpointWire(applicationId);
  }

  prepareEndpoint(applicationId: string, patch: { interactions_endpoint_url?: string | null }, errs: { add(path: (string | number)[], code: string, message: string): void }): Promise<(() => Promise<void>) | null> {
    return this.endpoint.prepareEndpoint(applicationId, patch, errs);
  }

  verifyEndpoint(applicationId: string, url: string): Promise<string | null> {
    return this.endpoint.verifyEndpoint(applicationId, url);
  }

  // ---- the token's routes (InteractionResponses.ts) ----

  checkCallbackToken(id: string, token: string): Promise<void> {
    return this.responses.checkCallbackToken(id, token);
  }

  checkWebhookToken(applicationId: string, token: string): Promise<void> {
    return this.responses.checkWebhookToken(applicationId, token);
  }

  callback(id: string, token: string, body: unknown, withResponse: boolean, uploads: Upload[] = []): Promise<Obj | undefined> {
    return this.responses.callback(id, token, body, withResponse, uploads);
  }

  apply(row: InteractionsTable, body: unknown, withResponse: boolean, uploads: Upload[] = []): Promise<Obj | undefined> {
    return this.responses.apply(row, body, withResponse, uploads);
  }

  getMessage(applicationId: string, token: string, messageId: string): Promise<APIMessage> {
    return this.responses.getMessage(applicationId, token, messageId);
  }

  editMessage(applicationId: string, token: string, messageId: string, body: unknown, uploads: Upload[] = []): Promise<APIMessage> {
    return this.responses.editMessage(applicationId, token, messageId, body, uploads);
  }

  deleteMessage(applicationId: string, token: string, messageId: string): Promise<void> {
    return this.responses.deleteMessage(applicationId, token, messageId);
  }

  followup(applicationId: string, token: string, body: unknown, uploads: Upload[] = []): Promise<APIMessage> {
    return this.responses.followup(applicationId, token, body, uploads);
  }

  // ---- invoking ----

  /** The application's authorization in this guild: guild install (bot is a member) and/or user install (applications.commands). */
  private async owners(app: ApplicationsTable, view: GuildView, userId: string, integrationTypes: number[]): Promise<{ owners: Record<string, string>; botMember: Awaited<ReturnType<Store['guildMembers']['get']>> }> {
    const botMember = await this.store.guildMembers.get(view.guild.id, app.bot_user_id);
    const auth = await this.store.oauth.authorization(this.store.database.db, app.id, userId);
    const userInstalled = !!auth && auth.scopes.split(' ').includes('applications.commands');
    const owners: Record<string, string> = {};
    if (botMember && integrationTypes.includes(0)) owners['0'] = view.guild.id;
    if (userInstalled && integrationTypes.includes(1)) owners['1'] = userId;
    return { owners, botMember };
  }

  /**
   * Who authorizes an interaction in a DM or group DM: a user install (`"1"`: the user), or in the
   * app's own bot DM a guild install too (`"0"`: "0", the public value outside a guild).
   */
  private async dmOwners(app: ApplicationsTable, userId: string, integrationTypes: number[], context: number): Promise<{ owners: Record<string, string>; botMember: undefined }> {
    const auth = await this.store.oauth.authorization(this.store.database.db, app.id, userId);
    const owners: Record<string, string> = {};
    if (context === InteractionContext.BotDm && integrationTypes.includes(0)) owners['0'] = '0';
    if (auth?.scopes.split(' ').includes('applications.commands') && integrationTypes.includes(1)) owners['1'] = userId;
    return { owners, botMember: undefined };
  }

  /** The commands a user may invoke in a channel (the web app's picker): applications installed in the guild or by the user. */
  async available(userId: string, channelId: string): Promise<unknown[]> {
    // DMs and group DMs of full accounts (messages/privateChannels.ts): their participants get the
    // commands usable there (contexts 1 and 2); others 50001.
    const dm = await new PrivateChannelRepo(this.store.database.db, this.store.ids).get(channelId);
    if (dm) {
      if (!dm.userIds.includes(userId)) throw new ApiError(403, 50001, 'Missing Access');
      return this.availableInDm(userId, dm);
    }
    const { view, channel } = await viewChannel(this.store, channelId, userId);
    const perms = view.channelPermissions(channel);
    // One query: the applications whose bot is a member of this guild (every member, not a first page).
    const installed = (await this.store.database.db
      .selectFrom('guild_members')
      .innerJoin('applications', 'applications.bot_user_id', 'guild_members.user_id')
      .selectAll('applications')
      .where('guild_members.guild_id', '=', view.guild.id)
      .execute()) as ApplicationsTable[];
    const apps = new Map<string, ApplicationsTable>(installed.map((a) => [a.id, a]));
    const botApps = new Set(installed.map((a) => a.bot_user_id));
    const authorized = await this.store.database.db.selectFrom('oauth_authorizations').select(['application_id', 'scopes']).where('user_id', '=', userId).execute();
    const userApps = new Set(authorized.filter((a) => a.scopes.split(' ').includes('applications.commands')).map((a) => a.application_id));
    const missing = [...userApps].filter((id) => !apps.has(id));
    if (missing.length > 0) for (const a of (await this.store.database.db.selectFrom('applications').selectAll().where('id', 'in', missing).execute()) as ApplicationsTable[]) apps.set(a.id, a);
    const rows = await this.repo.commandsFor([...apps.keys()], view.guild.id);
    const out: unknown[] = [];
    for (const r of rows) {
      const types = JSON.parse(r.integration_types) as number[];
      const app = apps.get(r.application_id)!;
      const guildOk = botApps.has(app.bot_user_id) && types.includes(0);
      const userOk = userApps.has(app.id) && types.includes(1);
      if (!guildOk && !userOk) continue;
      if (r.guild_id !== null && !guildOk) continue;
      const contexts = r.contexts ? (JSON.parse(r.contexts) as number[]) : null;
      if (contexts && !contexts.includes(InteractionContext.Guild)) continue;
      if (!userOk && !this.memberMay(perms, r)) continue;
      out.push({ ...commandWire(r, { localizations: false }), application: { id: app.id, name: app.name, icon: app.icon ?? null } });
    }
    return out;
  }

  /** In a DM or group DM: global commands of the user's own apps, and of the app whose bot this DM is with (BOT_DM). */
  private async availableInDm(userId: string, dm: { type: number; userIds: string[] }): Promise<unknown[]> {
    const authorized = await this.store.database.db.selectFrom('oauth_authorizations').select(['application_id', 'scopes']).where('user_id', '=', userId).execute();
    const userApps = new Set(authorized.filter((a) => a.scopes.split(' ').includes('applications.commands')).map((a) => a.application_id));
    let botDmApp: ApplicationsTable | undefined;
    if (dm.type === ChannelType.Dm) {
      const other = dm.userIds.find((u) => u !== userId);
      if (other) botDmApp = (await this.store.database.db.selectFrom('applications').selectAll().where('bot_user_id', '=', other).executeTakeFirst()) as ApplicationsTable | undefined;
    }
    const ids = [...new Set([...userApps, ...(botDmApp ? [botDmApp.id] : [])])];
    const out: unknown[] = [];
    for (const r of await this.repo.commandsFor(ids, null)) {
      const app = r.application_id === botDmApp?.id ? botDmApp : await this.store.applications.get(r.application_id);
      if (!app) continue;
      const types = JSON.parse(r.integration_types) as number[];
      const context = botDmApp && app.id === botDmApp.id ? InteractionContext.BotDm : InteractionContext.PrivateChannel;
      const contexts = r.contexts ? (JSON.parse(r.contexts) as number[]) : null;
      if (contexts && !contexts.includes(context)) continue;
      if (!((userApps.has(app.id) && types.includes(1)) || (context === InteractionContext.BotDm && types.includes(0)))) continue;
      out.push({ ...commandWire(r, { localizations: false }), application: { id: app.id, name: app.name, icon: app.icon ?? null } });
    }
    return out;
  }

  private memberMay(perms: bigint, cmd: ApplicationCommandsTable): boolean {
    if (cmd.default_member_permissions === null) return true;
    if (has(perms, Permission.Administrator)) return true;
    const need = BigInt(cmd.default_member_permissions);
    return need !== 0n && (perms & need) === need;
  }

  /** A user invokes: builds, records and delivers the interaction. Answers its ID and the nonce. */
  async invoke(caller: Invoker, body: InvokeBody, uploads: Upload[] = []): Promise<{ id: string; nonce: string | null }> {
    if (uploads.length > 0 && body.type !== InteractionType.ModalSubmit) throw E.invalidForm(['files'], 'BASE_TYPE_MAX_LENGTH', 'Only a modal submit (File Upload) carries files.');
    // A DM or group DM (contexts 1 and 2), else a guild channel (context 0).
    const privateChannels = privateChannelsFor(this.store, this.bus);
    const dmAccess = SNOWFLAKE.test(body.channel_id) ? await privateChannels.access(caller.userId, body.channel_id) : undefined;
    const dm = dmAccess ? privateChannels.of(dmAccess.channel) : undefined;
    const { view, channel } = dmAccess ?? (await viewChannel(this.store, body.channel_id, caller.userId));
    if (body.guild_id !== undefined && body.guild_id !== channel.guild_id) throw E.invalidForm(['guild_id'], 'BASE_TYPE_CHOICES', 'The channel is not in this guild.');
    const perms = dmAccess ? dmAccess.perms : view.channelPermissions(channel);
    let context: number = InteractionContext.Guild;
    const data = isObj(body.data) ? body.data : {};
    const user = (await this.store.users.get(caller.userId))!;
    let app: ApplicationsTable | undefined;
    let idata: Obj;
    let integrationTypes = [0, 1];
    let command: ApplicationCommandsTable | undefined;
    let messageId: string | null = null;
    let message: APIMessage | undefined;
    let opener: InteractionsTable | undefined;
    let storeModalFiles: (() => Promise<void>) | undefined;

    if (body.type === InteractionType.ApplicationCommand || body.type === InteractionType.Autocomplete) {
      const cid = typeof data.id === 'string' && SNOWFLAKE.test(data.id) ? data.id : undefined;
      command = cid ? await this.repo.command(cid) : undefined;
      if (!command || (command.guild_id !== null && command.guild_id !== channel.guild_id) || (body.application_id && body.application_id !== command.application_id)) throw E.unknownCommand();
      app = await this.store.applications.get(command.application_id);
      integrationTypes = JSON.parse(command.integration_types) as number[];
      if (dm && command.guild_id !== null) throw E.unknownCommand();
      context = !dm ? InteractionContext.Guild : dm.type === ChannelType.Dm && app && dm.userIds.includes(app.bot_user_id) ? InteractionContext.BotDm : InteractionContext.PrivateChannel;
      const contexts = command.contexts ? (JSON.parse(command.contexts) as number[]) : null;
      if (contexts && !contexts.includes(context)) throw Errors.missingAccess();
      idata = { id: command.id, name: command.name, type: command.type, ...(command.guild_id ? { guild_id: command.guild_id } : {}) };
      if (command.type === CommandType.ChatInput) {
        const resolved: Obj = {};
        const options = await this.commandOptions.check(view, channel.id, JSON.parse(command.options) as Obj[], data.options, ['data', 'options'], resolved, body.type === InteractionType.Autocomplete);
        if (options.length > 0) idata.options = options;
        if (Object.keys(resolved).length > 0) idata.resolved = resolved;
      } else if (command.type === CommandType.User || command.type === CommandType.Message) {
        const target = typeof data.target_id === 'string' ? data.target_id : '';
        const resolved: Obj = {};
        if (command.type === CommandType.User) {
          if (!(await this.commandOptions.resolveUser(view, target, resolved))) throw E.invalidForm(['data', 'target_id'], 'BASE_TYPE_CHOICES', 'Unknown member.');
        } else {
          const m = SNOWFLAKE.test(target) ? await this.messages.channelMessages.inChannel(channel.id, target) : undefined;
          if (!m) throw E.unknownMessage();
          resolved.messages = { [m.id]: messageWire(m, { users: await this.store.users.getMany([m.author_id, ...(JSON.parse(m.mentions) as string[])]) }) };
        }
        idata.target_id = target;
        idata.resolved = resolved;
      }
    } else if (body.type === InteractionType.MessageComponent) {
      messageId = typeof body.message_id === 'string' && SNOWFLAKE.test(body.message_id) ? body.message_id : null;
      if (!messageId) throw E.invalidForm(['message_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
      const found = await this.messages.componentMessage(messageId);
      if (found.wire.channel_id !== channel.id || (found.ephemeralFor !== null && found.ephemeralFor !== caller.userId) || !found.applicationId) throw E.unknownMessage();
      app = await this.store.applications.get(found.applicationId);
      message = found.wire;
      idata = this.componentData(found.wire, data);
      // Auto-populated selects (user 5, role 6, mentionable 7, channel 8): the chosen IDs, resolved.
      const ct = idata.component_type as number;
      if (ct >= 5 && ct <= 8 && Array.isArray(idata.values) && idata.values.length > 0) {
        const resolved: Obj = {};
        for (const v of idata.values as string[]) {
          const ok = ct === 5 ? await this.commandOptions.resolveUser(view, v, resolved)
            : ct === 6 ? this.commandOptions.resolveRole(view, v, resolved)
              : ct === 7 ? (await this.commandOptions.resolveUser(view, v, resolved)) || this.commandOptions.resolveRole(view, v, resolved)
                : await this.commandOptions.resolveChannel(view, v, resolved);
          if (!ok) throw E.invalidForm(['data', 'values'], 'BASE_TYPE_CHOICES', `Unknown ID ${v} for this select.`);
        }
        idata.resolved = resolved;
      }
    } else if (body.type === InteractionType.ModalSubmit) {
      const oid = typeof data.id === 'string' && SNOWFLAKE.test(data.id) ? data.id : '';
      opener = oid ? await this.repo.interaction(oid) : undefined;
      const modal = opener?.response_data ? (JSON.parse(opener.response_data) as Obj) : undefined;
      if (!opener || opener.user_id !== caller.userId || opener.response_type !== CallbackType.Modal || !modal || modal.custom_id !== data.custom_id || Date.now() - Number(opener.created_at) > this.tokenLifetimeMs) throw E.unknownInteraction();
      app = await this.store.applications.get(opener.application_id);
      const errs = new FieldErrors();
      const inputs = checkModal(modal, new FieldErrors());
      const components = checkSubmission(inputs, isObj(data.values) ? data.values : {}, errs, modal as { components: unknown[] });
      errs.throwIfAny();
      // File Upload fields name the request's files (`files[n]` by n): checked against the field's
      // types, stored like message attachments, sent as attachment IDs with `resolved.attachments`.
      const fileFields = inputs.filter((x) => x.type === ModalComponent.FileUpload);
      const used = new Set<number>();
      const plan: { input: (typeof fileFields)[number]; files: Upload[] }[] = [];
      for (const input of fileFields) {
        const refs = ((data.values as Obj | undefined)?.[input.custom_id] as string[] | undefined) ?? [];
        const files = refs.map((ref) => uploads.find((u) => String(u.index) === ref));
        files.forEach((f, k) => {
          if (!f) errs.add(['data', 'components', input.custom_id, k], 'BASE_TYPE_REQUIRED', `No file files[${refs[k]}] in the request.`);
          else if (!fileTypeAllowed(input.file_types, f.filename, f.contentType)) errs.add(['data', 'components', input.custom_id, k], 'FILE_TYPE_NOT_ALLOWED', `${f.filename} is not a type this field takes.`);
          // Storing moves an upload's temporary file into the store: one file, one attachment.
          else if (used.has(f.index)) errs.add(['data', 'components', input.custom_id, k], 'BASE_TYPE_CHOICES', `files[${refs[k]}] already belongs to a File Upload field.`);
          else used.add(f.index);
        });
        plan.push({ input, files: files.filter((f): f is Upload => !!f) });
      }
      if (uploads.some((u) => !used.has(u.index))) errs.add(['files'], 'BASE_TYPE_CHOICES', 'Every file must belong to a File Upload field.');
      errs.throwIfAny();
      idata = { custom_id: modal.custom_id, components };
      // The files are written only after every refusal below (access, permissions): a refused
      // submit leaves nothing in the attachment store.
      storeModalFiles = async () => {
        const resolvedFiles: Obj = {};
        for (const { input, files } of plan) {
          const wires = await this.messages.storeFiles(channel.id, files);
          for (const w of wires) resolvedFiles[w.id as string] = w;
          for (const c of components as Obj[]) {
            const inner = (c.component ?? undefined) as Obj | undefined;
            if (inner && inner.custom_id === input.custom_id) inner.values = wires.map((w) => w.id);
          }
        }
        if (Object.keys(resolvedFiles).length > 0) idata.resolved = { attachments: resolvedFiles };
      };
      messageId = opener.message_id;
      if (messageId) message = (await this.messages.componentMessage(messageId).catch(() => undefined))?.wire;
    } else {
      throw E.invalidForm(['type'], 'BASE_TYPE_CHOICES', 'Value must be one of (2, 3, 4, 5).');
    }
    if (!app) throw Errors.unknownApplication();

    if (dm && !command) context = dm.type === ChannelType.Dm && dm.userIds.includes(app.bot_user_id) ? InteractionContext.BotDm : InteractionContext.PrivateChannel;
    const { owners, botMember } = dm ? await this.dmOwners(app, caller.userId, integrationTypes, context) : await this.owners(app, view, caller.userId, integrationTypes);
    if (Object.keys(owners).length === 0 || (command?.guild_id && !owners['0'])) throw Errors.missingAccess();
    const userInstalledOnly = !owners['0'];
    if (!dm && !userInstalledOnly && !has(perms, Permission.UseApplicationCommands)) throw E.invalidForm(['channel_id'], 'MISSING_PERMISSIONS', 'USE_APPLICATION_COMMANDS is needed here.');
    if (!dm && command && userInstalledOnly === false && !this.memberMay(perms, command)) throw new ApiError(403, 50013, 'Missing Permissions');
    // A user-installed app where the member may not use external apps: every response is ephemeral, without error (spec).
    const forcedEphemeral = !dm && userInstalledOnly && !has(perms, Permission.UseExternalApps);
    if (storeModalFiles) await storeModalFiles();
    const appPermissions = botMember ? new GuildView(view.guild, view.roles, botMember).channelPermissions(channel) : perms & (Permission.ViewChannel | Permission.SendMessages | Permission.EmbedLinks | Permission.AttachFiles | Permission.ReadMessageHistory | Permission.UseExternalEmojis);
    if (isObj(idata.resolved) && isObj(idata.resolved.channels)) {
      // Resolved channels carry app_permissions when the bot is in the guild (spec).
      for (const c of Object.values(idata.resolved.channels) as Obj[]) {
        const row = await this.store.guilds.channel(c.id as string);
        if (row && botMember) c.app_permissions = new GuildView(view.guild, view.roles, botMember).channelPermissions(row).toString();
      }
    }

    const id = this.store.ids.next();
    // 64 characters: fits the router's path-parameter limit (100) with room to spare.
    const token = randomBytes(48).toString('base64url');
    const entitlements = [
      ...(await this.commerce.listEntitlements(app.id, { userId: caller.userId, excludeEnded: true })),
      ...(dm ? [] : (await this.commerce.listEntitlements(app.id, { guildId: view.guild.id, excludeEnded: true })).filter((e) => !e.user_id)),
    ];
    // Guild channels: guild, member (with the user); DMs: the channel as its participant sees it, and user.
    const where: Obj = dm
      ? { channel: await privateChannels.wire(dm, caller.userId), user: userWire(user) }
      : {
          guild_id: view.guild.id,
          guild: { id: view.guild.id, locale: 'en-US', features: JSON.parse((view.guild as { features?: string }).features ?? '[]') },
          channel: { ...channelWire(channel), permissions: perms.toString() },
          member: { ...memberWire(view.member), permissions: perms.toString(), user: userWire(user) },
          guild_locale: 'en-US',
        };
    const locale = caller.locale ?? 'en-US';
    const payload: Obj = {
      id,
      application_id: app.id,
      type: body.type,
      data: idata,
      channel_id: channel.id,
      ...where,
      token,
      version: 1,
      app_permissions: appPermissions.toString(),
      locale,
      entitlements,
      authorizing_integration_owners: owners,
      context,
      // The default, raised by the guild's boost level or the invoking user's paid level (spec).
      attachment_size_limit: await attachmentSizeLimitFor(this.store, { guildId: dm ? null : view.guild.id, userId: caller.userId }),
      ...(message ? { message } : {}),
    };
    const row: InteractionsTable = {
      id,
      application_id: app.id,
      type: body.type,
      command_type: command?.type ?? null,
      token_hash: hashToken(token),
      user_id: caller.userId,
      user_application_id: caller.applicationId,
      guild_id: dm ? null : view.guild.id,
      channel_id: channel.id,
      message_id: messageId,
      authorizing: JSON.stringify(owners),
      user_installed: userInstalledOnly ? 1 : 0,
      forced_ephemeral: forcedEphemeral ? 1 : 0,
      nonce: typeof body.nonce === 'string' ? body.nonce.slice(0, 64) : null,
      state: 'pending',
      response_type: null,
      response_data: null,
      original_message_id: null,
      name: interactionName(body.type, command, idata),
      triggering_id: opener?.id ?? null,
      target_id: typeof idata.target_id === 'string' ? idata.target_id : null,
      followups: 0,
      created_at: Date.now(),
      responded_at: null,
    };
    await this.repo.insertInteraction(row);
    this.toUser(row, 'INTERACTION_CREATE', { id, nonce: row.nonce });

    // An entry point whose handler is the platform's launches the activity itself: no app round trip.
    if (command?.type === CommandType.PrimaryEntryPoint && command.handler === 2) {
      await this.responses.apply(row, { type: CallbackType.LaunchActivity }, false);
      return { id, nonce: row.nonce };
    }
    await this.deliver(row, app, payload);
    return { id, nonce: row.nonce };
  }

  private toUser(row: InteractionsTable, t: string, d: unknown): void {
    this.bus.publish(userTopic(row.user_application_id, row.user_id), { t, json: JSON.stringify(d) });
  }

  private async deliver(row: InteractionsTable, app: ApplicationsTable, payload: Obj): Promise<void> {
    const endpoint = await this.repo.endpoint(app.id);
    const deadline = setTimeout(() => {
      this.timers.delete(deadline);
      void this.expire(row);
    }, this.deadlineMs);
    deadline.unref();
    this.timers.add(deadline);
    const json = JSON.stringify(payload);
    if (!endpoint) {
      this.bus.publish(userTopic(app.id, app.bot_user_id), { t: 'INTERACTION_CREATE', json });
      return;
    }
    // Over HTTP the answer is the response; nothing is retried (public behaviour).
    void (async () => {
      try {
        const res = await this.endpoint.post(app.id, endpoint, json);
        if (res.status === 200 && res.body) await this.responses.apply(row, JSON.parse(res.body), false);
        else if (res.status !== 202 && res.status !== 204) throw new Error(`HTTP ${res.status}`);
      } catch (err) {
        this.log.debug({ interaction: row.id, application: app.id, err: err instanceof Error ? err.message : String(err) }, 'interaction endpoint failed');
        await this.expire(row);
      }
    })();
  }

  /** The deadline passed (or the endpoint failed): pending becomes failed, and the user's client shows "interaction failed". */
  private async expire(row: InteractionsTable): Promise<void> {
    if (await this.repo.fail(row.id)) this.toUser(row, 'INTERACTION_FAILURE', { id: row.id, nonce: row.nonce });
  }

  private componentData(message: APIMessage, data: Obj): Obj {
    const customId = data.custom_id;
    const find = (list: unknown[]): Obj | undefined => {
      for (const c of list) {
        if (!isObj(c)) continue;
        if (c.custom_id === customId && (c.type === 2 || SELECT_TYPES.has(c.type as number))) return c;
        for (const key of ['components', 'accessory', 'component']) {
          const inner = c[key];
          const hit = Array.isArray(inner) ? find(inner) : isObj(inner) ? find([inner]) : undefined;
          if (hit) return hit;
        }
      }
      return undefined;
    };
    const c = typeof customId === 'string' ? find((message.components ?? []) as unknown[]) : undefined;
    if (!c || c.disabled === true) throw E.invalidForm(['data', 'custom_id'], 'COMPONENT_UNKNOWN', 'No enabled component with this custom_id on the message.');
    const out: Obj = { custom_id: customId, component_type: c.type };
    if (SELECT_TYPES.has(c.type as number)) {
      const values = data.values;
      if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) throw E.invalidForm(['data', 'values'], 'BASE_TYPE_LIST', 'Must be a list of strings.');
      const min = (c.min_values as number | undefined) ?? 1;
      const max = (c.max_values as number | undefined) ?? 1;
      if (values.length < min || values.length > max) throw E.invalidForm(['data', 'values'], 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
      if (c.type === 3 && !values.every((v) => ((c.options as Obj[]) ?? []).some((o) => o.value === v))) throw E.invalidForm(['data', 'values'], 'BASE_TYPE_CHOICES', 'Not one of the options.');
      out.values = values;
    }
    return out;
  }

  // ---- responding ----

}

/**
 * The deprecated message `interaction.name`: a command's name with its sub-command group and
 * sub-command ("settings user show"), else the component's or modal's `custom_id`.
 */
function interactionName(type: number, command: ApplicationCommandsTable | undefined, idata: Obj): string | null {
  if (command) {
    const parts = [command.name];
    let opts = Array.isArray(idata.options) ? (idata.options as Obj[]) : [];
    // SUB_COMMAND 1 and SUB_COMMAND_GROUP 2 name the path; their options hold the next level.
    while (opts.length === 1 && (opts[0]!.type === 1 || opts[0]!.type === 2)) {
      parts.push(String(opts[0]!.name));
      opts = Array.isArray(opts[0]!.options) ? (opts[0]!.options as Obj[]) : [];
    }
    return parts.join(' ').slice(0, 120);
  }
  return type === InteractionType.MessageComponent || type === InteractionType.ModalSubmit ? String(idata.custom_id ?? '').slice(0, 120) || null : null;
}
