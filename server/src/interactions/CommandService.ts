import type { Store } from '../storage/Store.ts';
import { type InteractionRepo, interactionRepo } from '../storage/InteractionRepo.ts';
import type { ApplicationCommandsTable } from '../storage/interactionSchema.ts';
import { FieldErrors } from '../applications/formErrors.ts';
import { GuildErrors } from '../guilds/guildErrors.ts';
import { type CommandFields, CommandType, checkCommand } from './commandRules.ts';
import { InteractionErrors as E } from './interactionErrors.ts';

/** Public limits per scope (global, or one guild): 100 slash commands, 15 user, 15 message, 1 entry point (global only). */
export const COMMAND_LIMITS: Record<number, number> = { [CommandType.ChatInput]: 100, [CommandType.User]: 15, [CommandType.Message]: 15, [CommandType.PrimaryEntryPoint]: 1 };

/** The public ApplicationCommand object. */
export type CommandWire = Record<string, unknown> & { id: string; application_id: string; type: number; name: string };

export function commandWire(row: ApplicationCommandsTable, opts: { localizations?: boolean; locale?: string } = {}): CommandWire {
  const nameLoc = row.name_localizations ? (JSON.parse(row.name_localizations) as Record<string, string>) : null;
  const descLoc = row.description_localizations ? (JSON.parse(row.description_localizations) as Record<string, string>) : null;
  const out: CommandWire = {
    id: row.id,
    application_id: row.application_id,
    version: row.version,
    default_member_permissions: row.default_member_permissions,
    type: row.type,
    name: row.name,
    description: row.description,
    ...(row.guild_id ? { guild_id: row.guild_id } : {}),
    ...(row.dm_permission !== null ? { dm_permission: row.dm_permission === 1 } : { dm_permission: true }),
    nsfw: row.nsfw === 1,
    integration_types: JSON.parse(row.integration_types) as number[],
    contexts: row.contexts ? (JSON.parse(row.contexts) as number[]) : null,
    ...(row.handler !== null ? { handler: row.handler } : {}),
  };
  const options = JSON.parse(row.options) as unknown[];
  if (options.length > 0) out.options = options;
  if (opts.localizations !== false) {
    out.name_localizations = nameLoc;
    out.description_localizations = descLoc;
  }
  if (opts.locale) {
    if (nameLoc?.[opts.locale]) out.name_localized = nameLoc[opts.locale];
    if (descLoc?.[opts.locale]) out.description_localized = descLoc[opts.locale];
  }
  return out;
}

function fieldsOf(row: ApplicationCommandsTable): CommandFields {
  return {
    type: row.type,
    name: row.name,
    name_localizations: row.name_localizations ? JSON.parse(row.name_localizations) : null,
    description: row.description,
    description_localizations: row.description_localizations ? JSON.parse(row.description_localizations) : null,
    options: JSON.parse(row.options),
    default_member_permissions: row.default_member_permissions,
    dm_permission: row.dm_permission === null ? null : row.dm_permission === 1,
    nsfw: row.nsfw === 1,
    integration_types: JSON.parse(row.integration_types),
    contexts: row.contexts ? JSON.parse(row.contexts) : null,
    handler: row.handler,
  };
}

/**
 * Application commands (issue 13): global and guild commands with the public create (an upsert
 * by name and type), get, list, edit, delete and bulk overwrite. Limits per scope and type answer
 * 30032; invalid fields 50035 at their path. Every check runs before the one transaction that
 * writes, so a refusal writes nothing.
 */
export class CommandService {
  readonly repo: InteractionRepo;

  constructor(private readonly store: Store) {
    this.repo = interactionRepo(store.database.db, store.ids);
  }

  /** The application's installation contexts (integration_types_config keys), the default `integration_types`. */
  private async defaultIntegrationTypes(applicationId: string): Promise<number[]> {
    const app = await this.store.applications.get(applicationId);
    const cfg = app?.integration_types_config ? Object.keys(JSON.parse(app.integration_types_config) as object).map(Number).filter((n) => n === 0 || n === 1) : [];
    return cfg.length > 0 ? cfg.sort() : [0];
  }

  /** Guild commands need the guild, with the application's bot in it (else 50001). */
  private async checkGuild(applicationId: string, guildId: string | null): Promise<void> {
    if (guildId === null) return;
    const guild = /^\d{1,20}$/.test(guildId) ? await this.store.guilds.get(guildId) : undefined;
    if (!guild) throw GuildErrors.unknownGuild();
    const app = await this.store.applications.get(applicationId);
    if (!app || !(await this.store.guildMembers.get(guildId, app.bot_user_id))) throw E.missingAccess();
  }

  private row(applicationId: string, guildId: string | null, f: CommandFields, id: string, createdAt: number): ApplicationCommandsTable {
    return {
      id,
      application_id: applicationId,
      guild_id: guildId,
      type: f.type,
      name: f.name,
      name_localizations: f.name_localizations ? JSON.stringify(f.name_localizations) : null,
      description: f.description,
      description_localizations: f.description_localizations ? JSON.stringify(f.description_localizations) : null,
      options: JSON.stringify(f.options),
      default_member_permissions: f.default_member_permissions,
      dm_permission: f.dm_permission === null ? null : f.dm_permission ? 1 : 0,
      nsfw: f.nsfw ? 1 : 0,
      integration_types: JSON.stringify(f.integration_types),
      contexts: f.contexts ? JSON.stringify(f.contexts) : null,
      handler: f.handler,
      version: this.store.ids.next(),
      created_at: createdAt,
    };
  }

  /** The entry point is one per application; the 30032 count per type in the scope. */
  private checkLimits(rows: { type: number }[], errs?: FieldErrors): void {
    const counts = new Map<number, number>();
    for (const r of rows) counts.set(r.type, (counts.get(r.type) ?? 0) + 1);
    const entry = counts.get(CommandType.PrimaryEntryPoint) ?? 0;
    if (entry > 1) {
      if (errs) errs.add(['type'], 'APPLICATION_COMMAND_ENTRY_POINT_EXISTS', 'An application can have only one PRIMARY_ENTRY_POINT command.');
      else throw E.invalidForm(['type'], 'APPLICATION_COMMAND_ENTRY_POINT_EXISTS', 'An application can have only one PRIMARY_ENTRY_POINT command.');
    }
    for (const [type, n] of counts) if (type !== CommandType.PrimaryEntryPoint && n > COMMAND_LIMITS[type]!) throw E.tooManyCommands(COMMAND_LIMITS[type]!);
  }

  async list(applicationId: string, guildId: string | null, opts: { withLocalizations?: boolean } = {}): Promise<CommandWire[]> {
    await this.checkGuild(applicationId, guildId);
    return (await this.repo.commands(applicationId, guildId)).map((r) => commandWire(r, { localizations: opts.withLocalizations === true }));
  }

  private async own(applicationId: string, guildId: string | null, id: string): Promise<ApplicationCommandsTable> {
    const row = /^\d{1,20}$/.test(id) ? await this.repo.command(id) : undefined;
    if (!row || row.application_id !== applicationId || row.guild_id !== guildId) throw E.unknownCommand();
    return row;
  }

  async get(applicationId: string, guildId: string | null, id: string): Promise<CommandWire> {
    await this.checkGuild(applicationId, guildId);
    return commandWire(await this.own(applicationId, guildId, id));
  }

  /** Create: a command with the same name and type in the scope is replaced (public upsert); `created` says which. */
  async create(applicationId: string, guildId: string | null, body: unknown): Promise<{ command: CommandWire; created: boolean }> {
    await this.checkGuild(applicationId, guildId);
    const errs = new FieldErrors();
    const f = checkCommand(body, errs, [], { defaultIntegrationTypes: await this.defaultIntegrationTypes(applicationId), guild: guildId !== null });
    errs.throwIfAny();
    return this.repo.transaction(async (tx) => {
      const existing = await this.repo.commands(applicationId, guildId, tx);
      const same = existing.find((r) => r.type === f!.type && r.name === f!.name);
      if (same) {
        const row = this.row(applicationId, guildId, f!, same.id, Number(same.created_at));
        const { id: _i, application_id: _a, guild_id: _g, created_at: _c, ...set } = row;
        await this.repo.updateCommand(tx, same.id, set);
        return { command: commandWire(row), created: false };
      }
      this.checkLimits([...existing, f!]);
      const row = this.row(applicationId, guildId, f!, this.store.ids.next(), Date.now());
      await this.repo.insertCommand(tx, row);
      return { command: commandWire(row), created: true };
    });
  }

  async edit(applicationId: string, guildId: string | null, id: string, body: unknown): Promise<CommandWire> {
    await this.checkGuild(applicationId, guildId);
    const current = await this.own(applicationId, guildId, id);
    const errs = new FieldErrors();
    const f = checkCommand(body, errs, [], { base: fieldsOf(current), defaultIntegrationTypes: await this.defaultIntegrationTypes(applicationId), guild: guildId !== null });
    errs.throwIfAny();
    return this.repo.transaction(async (tx) => {
      const others = (await this.repo.commands(applicationId, guildId, tx)).filter((r) => r.id !== id);
      if (others.some((r) => r.type === f!.type && r.name === f!.name)) throw E.invalidForm(['name'], 'APPLICATION_COMMAND_ALREADY_EXISTS', 'A command with this name and type already exists.');
      const row = this.row(applicationId, guildId, f!, id, Number(current.created_at));
      const { id: _i, application_id: _a, guild_id: _g, created_at: _c, ...set } = row;
      await this.repo.updateCommand(tx, id, set);
      return commandWire(row);
    });
  }

  async delete(applicationId: string, guildId: string | null, id: string): Promise<void> {
    await this.checkGuild(applicationId, guildId);
    await this.own(applicationId, guildId, id);
    await this.repo.deleteCommand(this.repo.db, id);
  }

  /**
   * Bulk overwrite: the list becomes the scope's commands. Items matched by `id`, else by name and
   * type, keep their IDs; the rest are deleted. All items are checked (paths `3.name`) first.
   */
  async overwrite(applicationId: string, guildId: string | null, items: unknown): Promise<CommandWire[]> {
    await this.checkGuild(applicationId, guildId);
    if (!Array.isArray(items)) throw E.invalidForm([], 'BASE_TYPE_LIST', 'Must be a list.');
    const errs = new FieldErrors();
    const defaults = await this.defaultIntegrationTypes(applicationId);
    const fields = items.map((b, i) => checkCommand(b, errs, [i], { defaultIntegrationTypes: defaults, guild: guildId !== null }));
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (!f) return;
      const key = `${f.type}:${f.name}`;
      if (seen.has(key)) errs.add([i, 'name'], 'APPLICATION_COMMANDS_DUPLICATE_NAME', `Application command names must be unique (${f.name}).`);
      seen.add(key);
    });
    errs.throwIfAny();
    this.checkLimits(fields as CommandFields[]);
    return this.repo.transaction(async (tx) => {
      const existing = await this.repo.commands(applicationId, guildId, tx);
      const kept = new Set<string>();
      const out: CommandWire[] = [];
      for (const [i, f] of (fields as CommandFields[]).entries()) {
        const wantedId = (items[i] as { id?: unknown }).id;
        const match = existing.find((r) => !kept.has(r.id) && ((typeof wantedId === 'string' && r.id === wantedId) || (r.type === f.type && r.name === f.name)));
        if (match) {
          kept.add(match.id);
          const row = this.row(applicationId, guildId, f, match.id, Number(match.created_at));
          const { id: _i, application_id: _a, guild_id: _g, created_at: _c, ...set } = row;
          await this.repo.updateCommand(tx, match.id, set);
          out.push(commandWire(row));
        } else {
          const row = this.row(applicationId, guildId, f, this.store.ids.next(), Date.now());
          await this.repo.insertCommand(tx, row);
          out.push(commandWire(row));
        }
      }
      for (const r of existing) if (!kept.has(r.id)) await this.repo.deleteCommand(tx, r.id);
      return out;
    });
  }
}
