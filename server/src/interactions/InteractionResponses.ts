import type { APIMessage } from 'discord-api-types/v10';
import type { Store } from '../storage/Store.ts';
import { type InteractionRepo, hashToken } from '../storage/InteractionRepo.ts';
import type { InteractionsTable } from '../storage/interactionSchema.ts';
import { FieldErrors } from '../applications/formErrors.ts';
import { CommandType } from './commandRules.ts';
import { InteractionErrors as E } from './interactionErrors.ts';
import { InteractionMessages, prepareMessage, type Upload } from './InteractionMessages.ts';
import { checkModal } from './modalComponents.ts';
import { ALLOWED_CALLBACKS, CallbackType, InteractionType, MessageFlag, ResponseMessageType } from './interactionWire.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const SNOWFLAKE = /^\d{1,20}$/;
const MAX_FOLLOWUPS_USER_INSTALLED = 5;

/**
 * The interaction token's routes (for InteractionService): the first response (the callback, or
 * the answer of the HTTP endpoint), then for 15 minutes the original response and the follow-up
 * messages through the token's webhook routes.
 */
export class InteractionResponses {
  constructor(
    private readonly store: Store,
    private readonly repo: InteractionRepo,
    private readonly messages: InteractionMessages,
    /** A dispatch to the user who started the interaction (their Gateway sessions). */
    private readonly toUser: (row: InteractionsTable, t: string, d: unknown) => void,
    private readonly times: { deadlineMs: number; tokenLifetimeMs: number },
  ) {}

  private async byToken(id: string, token: string): Promise<InteractionsTable> {
    const row = SNOWFLAKE.test(id) ? await this.repo.interaction(id) : undefined;
    if (!row || row.token_hash !== hashToken(token)) throw E.unknownInteraction();
    return row;
  }

  /** The callback's token, checked before its body is read (a bad token never has its files buffered). */
  async checkCallbackToken(id: string, token: string): Promise<void> {
    await this.byToken(id, token);
  }

  /** A follow-up's or edit's token, checked before its body is read. */
  async checkWebhookToken(applicationId: string, token: string): Promise<void> {
    await this.live(applicationId, token);
  }

  /** `POST /interactions/{id}/{token}/callback`. */
  async callback(id: string, token: string, body: unknown, withResponse: boolean, uploads: Upload[] = []): Promise<Obj | undefined> {
    return this.apply(await this.byToken(id, token), body, withResponse, uploads);
  }

  /**
   * The first response: checks the type against the interaction's type and the data against its
   * rules (nothing is written when they fail), then wins the interaction at most once.
   */
  async apply(row: InteractionsTable, body: unknown, withResponse: boolean, uploads: Upload[] = []): Promise<Obj | undefined> {
    const b = isObj(body) ? body : {};
    const type = b.type;
    if (typeof type !== 'number' || !Number.isInteger(type)) throw E.invalidForm(['type'], 'BASE_TYPE_REQUIRED', 'This field is required');
    const allowed = ALLOWED_CALLBACKS[type];
    if (!allowed) throw E.invalidForm(['type'], 'BASE_TYPE_CHOICES', 'Value must be one of (1, 4, 5, 6, 7, 8, 9, 10, 12).');
    if (!allowed.includes(row.type)) throw E.invalidForm(['type'], 'INTERACTION_RESPONSE_TYPE_INVALID', `Callback type ${type} cannot answer an interaction of type ${row.type}.`);
    if (row.state === 'failed' || Date.now() - Number(row.created_at) > this.times.deadlineMs) throw E.unknownInteraction();
    if (row.state === 'responded') throw E.alreadyAcknowledged();

    const data = b.data;
    let responseData: string | null = null;
    let prepared: ReturnType<typeof prepareMessage> | undefined;
    let deferFlags = 0;
    let choices: unknown[] | undefined;
    if (uploads.length > 0 && type !== CallbackType.ChannelMessageWithSource && type !== CallbackType.UpdateMessage) throw E.invalidForm(['files'], 'BASE_TYPE_MAX_LENGTH', 'Only message responses (4, 7) carry files.');
    if (type === CallbackType.ChannelMessageWithSource) prepared = prepareMessage(data, { prefix: ['data'], allowPoll: true, uploads });
    else if (type === CallbackType.UpdateMessage) prepared = prepareMessage(data, { prefix: ['data'], partial: true, allowPoll: false, uploads });
    else if (type === CallbackType.DeferredChannelMessageWithSource) {
      deferFlags = isObj(data) && typeof data.flags === 'number' ? data.flags : 0;
      if ((deferFlags & ~(MessageFlag.Ephemeral | MessageFlag.SuppressNotifications | MessageFlag.IsComponentsV2)) !== 0) throw E.invalidForm(['data', 'flags'], 'MESSAGE_FLAGS_INVALID', 'Invalid message flags.');
    } else if (type === CallbackType.AutocompleteResult) {
      const errs = new FieldErrors();
      choices = isObj(data) && Array.isArray(data.choices) ? data.choices : [];
      if (choices.length > 25) errs.add(['data', 'choices'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
      choices.forEach((c, i) => {
        if (!isObj(c) || typeof c.name !== 'string' || c.name.length < 1 || c.name.length > 100) errs.add(['data', 'choices', i, 'name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
        if (!isObj(c) || (typeof c.value !== 'string' && typeof c.value !== 'number') || (typeof c.value === 'string' && c.value.length > 100)) errs.add(['data', 'choices', i, 'value'], 'BASE_TYPE_BAD_LENGTH', 'Must be a string of at most 100 characters or a number.');
      });
      errs.throwIfAny();
    } else if (type === CallbackType.Modal) {
      const errs = new FieldErrors();
      checkModal(data, errs);
      errs.throwIfAny();
      responseData = JSON.stringify(data);
    } else if (type === CallbackType.LaunchActivity) {
      responseData = JSON.stringify({ launched_at: new Date().toISOString() });
    }
    if (type === CallbackType.UpdateMessage && !row.message_id) throw E.unknownMessage();

    const app = (await this.store.applications.get(row.application_id))!;
    const now = Date.now();
    let publish: (() => Promise<APIMessage>) | undefined;
    let originalId: string | null = null;
    const pre = await this.messages.before(row, app.bot_user_id, true, prepared);
    // Files first (a row never names a missing file); only a message response stores them here.
    const stored = type === CallbackType.ChannelMessageWithSource && prepared ? await this.messages.storeUploads(row.channel_id!, prepared) : [];
    const won = await this.repo.transaction(async (tx) => {
      if (!(await this.repo.respond(tx, row.id, { response_type: type, response_data: responseData, now }))) return false;
      const msgType = row.type !== InteractionType.ApplicationCommand ? ResponseMessageType.Default : row.command_type === CommandType.User || row.command_type === CommandType.Message ? ResponseMessageType.ContextMenuCommand : ResponseMessageType.ChatInputCommand;
      if (type === CallbackType.ChannelMessageWithSource || type === CallbackType.DeferredChannelMessageWithSource) {
        const m = prepared ?? { content: '', embeds: [], components: [], flags: deferFlags, tts: false, poll: null };
        const created = await this.messages.create(tx, row, m, { original: true, type: msgType, botUserId: app.bot_user_id, loading: type === CallbackType.DeferredChannelMessageWithSource, pre, stored });
        await this.repo.setOriginal(tx, row.id, created.id);
        originalId = created.id;
        publish = created.publish;
      } else if (type === CallbackType.DeferredUpdateMessage || type === CallbackType.UpdateMessage) {
        await this.repo.setOriginal(tx, row.id, row.message_id!);
        originalId = row.message_id;
      }
      return true;
    }).catch(async (e: unknown) => {
      await this.messages.dropUploads(row.channel_id!, stored);
      throw e;
    });
    if (!won) {
      await this.messages.dropUploads(row.channel_id!, stored);
      const now2 = await this.repo.interaction(row.id);
      throw now2?.state === 'responded' ? E.alreadyAcknowledged() : E.unknownInteraction();
    }
    row.original_message_id = originalId;
    let message: APIMessage | undefined;
    if (publish) message = await publish();
    if (type === CallbackType.UpdateMessage) message = await this.messages.edit(row, row.message_id!, data, ['data'], uploads).catch(() => undefined);
    if (type === CallbackType.AutocompleteResult) this.toUser(row, 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE', { id: row.id, nonce: row.nonce, choices });
    if (type === CallbackType.Modal) this.toUser(row, 'INTERACTION_MODAL_CREATE', { id: row.id, nonce: row.nonce, channel_id: row.channel_id, application: { id: app.id, name: app.name }, ...(data as Obj) });
    if (type === CallbackType.LaunchActivity) this.toUser(row, 'INTERACTION_LAUNCH_ACTIVITY', { id: row.id, nonce: row.nonce, application_id: app.id, channel_id: row.channel_id });
    if (type === CallbackType.PremiumRequired) this.toUser(row, 'INTERACTION_PREMIUM_REQUIRED', { id: row.id, nonce: row.nonce, application_id: app.id, channel_id: row.channel_id });
    this.toUser(row, 'INTERACTION_SUCCESS', { id: row.id, nonce: row.nonce });
    if (!withResponse) return undefined;
    return {
      interaction: {
        id: row.id,
        type: row.type,
        ...(message ? { response_message_id: message.id, response_message_loading: type === CallbackType.DeferredChannelMessageWithSource, response_message_ephemeral: ((message.flags ?? 0) & MessageFlag.Ephemeral) !== 0 } : {}),
      },
      resource: { type, ...(message ? { message } : {}), ...(type === CallbackType.LaunchActivity ? { activity_instance: { id: row.id } } : {}) },
    };
  }

  // ---- the token's webhook routes (15 minutes) ----

  private async live(applicationId: string, token: string): Promise<InteractionsTable> {
    const row = await this.repo.byToken(token);
    if (!row || row.application_id !== applicationId || Date.now() - Number(row.created_at) > this.times.tokenLifetimeMs) throw E.unknownWebhook();
    return row;
  }

  private async originalId(row: InteractionsTable): Promise<string> {
    if (!row.original_message_id) throw E.unknownMessage();
    return row.original_message_id;
  }

  async getMessage(applicationId: string, token: string, messageId: string): Promise<APIMessage> {
    const row = await this.live(applicationId, token);
    const id = messageId === '@original' ? await this.originalId(row) : messageId;
    if (messageId === '@original' && (row.response_type === CallbackType.UpdateMessage || row.response_type === CallbackType.DeferredUpdateMessage)) return (await this.messages.componentMessage(id)).wire;
    return (await this.messages.read(row, id)).wire;
  }

  async editMessage(applicationId: string, token: string, messageId: string, body: unknown, uploads: Upload[] = []): Promise<APIMessage> {
    const row = await this.live(applicationId, token);
    const id = messageId === '@original' ? await this.originalId(row) : messageId;
    if (messageId !== '@original') await this.messages.read(row, id);
    return this.messages.edit(row, id, body, [], uploads);
  }

  async deleteMessage(applicationId: string, token: string, messageId: string): Promise<void> {
    const row = await this.live(applicationId, token);
    const id = messageId === '@original' ? await this.originalId(row) : messageId;
    await this.messages.delete(row, id);
  }

  /** Create Followup Message: after the first response; at most 5 for a user-installed app (spec). */
  async followup(applicationId: string, token: string, body: unknown, uploads: Upload[] = []): Promise<APIMessage> {
    const row = await this.live(applicationId, token);
    if (row.state !== 'responded') throw E.unknownWebhook();
    const m = prepareMessage(body, { prefix: [], allowPoll: true, uploads });
    const app = (await this.store.applications.get(applicationId))!;
    const pre = await this.messages.before(row, app.bot_user_id, false, m);
    const stored = await this.messages.storeUploads(row.channel_id!, m);
    const created = await this.repo.transaction(async (tx) => {
      if (!(await this.repo.addFollowup(tx, row.id, row.user_installed === 1 ? MAX_FOLLOWUPS_USER_INSTALLED : null))) throw E.tooManyFollowups();
      return this.messages.create(tx, row, m, { original: false, type: ResponseMessageType.Default, botUserId: app.bot_user_id, pre, stored });
    }).catch(async (e: unknown) => {
      // Refused (the follow-up cap) or failed: the files written for it go too.
      await this.messages.dropUploads(row.channel_id!, stored);
      throw e;
    });
    return created.publish();
  }
}
