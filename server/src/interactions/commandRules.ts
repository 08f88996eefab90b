import { FieldErrors } from '../applications/formErrors.ts';

/**
 * The public rules of an application command's fields (names, descriptions, options, choices,
 * localizations, integration types, contexts, the entry point's handler). Every problem is added
 * to one 50035 tree at its field path (`options.0.choices.3.name`), so one answer names them all.
 */
export const CommandType = { ChatInput: 1, User: 2, Message: 3, PrimaryEntryPoint: 4 } as const;
export const OptionType = { SubCommand: 1, SubCommandGroup: 2, String: 3, Integer: 4, Boolean: 5, User: 6, Channel: 7, Role: 8, Mentionable: 9, Number: 10, Attachment: 11 } as const;
export const EntryPointHandler = { AppHandler: 1, PlatformLaunchActivity: 2 } as const;

/** Locales of the public localization maps. */
export const LOCALES = new Set(['id', 'da', 'de', 'en-GB', 'en-US', 'es-ES', 'es-419', 'fr', 'hr', 'it', 'lt', 'hu', 'nl', 'no', 'pl', 'pt-BR', 'ro', 'fi', 'sv-SE', 'vi', 'tr', 'cs', 'el', 'bg', 'ru', 'uk', 'hi', 'th', 'zh-CN', 'ja', 'zh-TW', 'ko']);

/** CHAT_INPUT names and option names: 1-32 of letters, digits, `-`, `_`, `'` (and Devanagari/Thai), lower case where a script has case. */
const CHAT_INPUT_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const MAX_OPTIONS = 25;
const MAX_CHOICES = 25;
/** The public cap on a command's name, description and options together. */
const MAX_COMMAND_CHARS = 8000;

/** A command as stored and answered (the public ApplicationCommand fields). */
export interface CommandFields {
  type: number;
  name: string;
  name_localizations: Record<string, string> | null;
  description: string;
  description_localizations: Record<string, string> | null;
  options: unknown[];
  default_member_permissions: string | null;
  dm_permission: boolean | null;
  nsfw: boolean;
  integration_types: number[];
  contexts: number[] | null;
  handler: number | null;
}

type Path = (string | number)[];
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function nameOk(type: number, name: string): boolean {
  if (type === CommandType.ChatInput || type === CommandType.PrimaryEntryPoint) return CHAT_INPUT_NAME.test(name) && name === name.toLowerCase();
  return name.length >= 1 && name.length <= 32 && name.trim() === name;
}

function checkString(errs: FieldErrors, path: Path, v: unknown, min: number, max: number): v is string {
  if (typeof v !== 'string') {
    errs.add(path, v === undefined ? 'BASE_TYPE_REQUIRED' : 'BASE_TYPE_STRING', v === undefined ? 'This field is required' : 'Could not interpret value as string.');
    return false;
  }
  if (v.length < min || v.length > max) {
    errs.add(path, 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
    return false;
  }
  return true;
}

function checkLocalizations(errs: FieldErrors, path: Path, v: unknown, each: (p: Path, s: unknown) => void): Record<string, string> | null {
  if (v === undefined || v === null) return null;
  if (!isObj(v)) {
    errs.add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
    return null;
  }
  for (const [k, s] of Object.entries(v)) {
    if (!LOCALES.has(k)) errs.add([...path, k], 'LOCALE_INVALID', `Invalid locale: ${k}.`);
    else each([...path, k], s);
  }
  return v as Record<string, string>;
}

function checkIntList(errs: FieldErrors, path: Path, v: unknown, allowed: number[]): number[] | null {
  if (!Array.isArray(v)) {
    errs.add(path, 'BASE_TYPE_LIST', 'Must be a list.');
    return null;
  }
  v.forEach((x, i) => {
    if (!isInt(x) || !allowed.includes(x)) errs.add([...path, i], 'BASE_TYPE_CHOICES', `Value must be one of (${allowed.join(', ')}).`);
  });
  return [...new Set(v as number[])];
}

/**
 * Checks one command body and returns its normalized fields. `partial` is an edit: absent fields
 * keep `base`'s values. `defaultIntegrationTypes` is the application's installation contexts.
 */
export function checkCommand(body: unknown, errs: FieldErrors, prefix: Path, opts: { base?: CommandFields; defaultIntegrationTypes: number[]; guild: boolean }): CommandFields | null {
  if (!isObj(body)) {
    errs.add(prefix, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
    return null;
  }
  const base = opts.base;
  const before = errs.count;
  const p = (...k: (string | number)[]) => [...prefix, ...k];
  const type = body.type === undefined ? (base?.type ?? CommandType.ChatInput) : body.type;
  if (!isInt(type) || type < 1 || type > 4) {
    errs.add(p('type'), 'BASE_TYPE_CHOICES', 'Value must be one of (1, 2, 3, 4).');
    return null;
  }
  if (base && type !== base.type) errs.add(p('type'), 'APPLICATION_COMMAND_TYPE_IMMUTABLE', 'The type of a command cannot be changed.');

  const name = body.name === undefined && base ? base.name : body.name;
  if (checkString(errs, p('name'), name, 1, 32) && !nameOk(type, name)) errs.add(p('name'), 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  const nameLoc = body.name_localizations === undefined && base ? base.name_localizations : checkLocalizations(errs, p('name_localizations'), body.name_localizations, (lp, s) => {
    if (checkString(errs, lp, s, 1, 32) && !nameOk(type, s)) errs.add(lp, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  });

  const contextMenu = type === CommandType.User || type === CommandType.Message;
  let description = body.description === undefined ? (base?.description ?? (contextMenu ? '' : undefined)) : body.description;
  if (contextMenu) {
    // Context-menu commands have no description (the public API wants an empty string).
    if (description !== '' && description !== null) errs.add(p('description'), 'APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION', 'Context menu commands cannot have a description.');
    description = '';
  } else checkString(errs, p('description'), description, 1, 100);
  const descLoc = body.description_localizations === undefined && base ? base.description_localizations : checkLocalizations(errs, p('description_localizations'), body.description_localizations, (lp, s) => {
    if (contextMenu) errs.add(lp, 'APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION', 'Context menu commands cannot have a description.');
    else checkString(errs, lp, s, 1, 100);
  });

  let options: unknown[] = base?.options ?? [];
  if (body.options !== undefined && body.options !== null) {
    if (type !== CommandType.ChatInput) errs.add(p('options'), 'APPLICATION_COMMAND_OPTIONS_NOT_ALLOWED', 'Only CHAT_INPUT commands can have options.');
    else options = checkOptions(errs, p('options'), body.options, 0);
  } else if (body.options === null) options = [];

  let dmp: unknown = body.dm_permission === undefined ? (base?.dm_permission ?? null) : body.dm_permission;
  if (dmp !== null && typeof dmp !== 'boolean') {
    errs.add(p('dm_permission'), 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
    dmp = null;
  }
  let dmpBits: unknown = body.default_member_permissions === undefined ? (base?.default_member_permissions ?? null) : body.default_member_permissions;
  if (typeof dmpBits === 'number' && Number.isInteger(dmpBits) && dmpBits >= 0) dmpBits = String(dmpBits);
  if (dmpBits !== null && (typeof dmpBits !== 'string' || !/^[0-9]{1,20}$/.test(dmpBits) || BigInt(dmpBits) >= 1n << 64n)) {
    errs.add(p('default_member_permissions'), 'NUMBER_TYPE_COERCE', `Value "${String(dmpBits)}" is not a permission bitfield.`);
    dmpBits = null;
  }
  let nsfw: unknown = body.nsfw === undefined ? (base?.nsfw ?? false) : body.nsfw;
  if (typeof nsfw !== 'boolean') {
    errs.add(p('nsfw'), 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
    nsfw = false;
  }
  const integrationTypes = body.integration_types === undefined || body.integration_types === null
    ? (base?.integration_types ?? opts.defaultIntegrationTypes)
    : (checkIntList(errs, p('integration_types'), body.integration_types, [0, 1]) ?? []);
  if (integrationTypes.length === 0 && body.integration_types !== undefined) errs.add(p('integration_types'), 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 2 in length.');
  let contexts: number[] | null = body.contexts === undefined ? (base?.contexts ?? null) : body.contexts === null ? null : checkIntList(errs, p('contexts'), body.contexts, [0, 1, 2]);
  if (contexts !== null && contexts.length === 0) errs.add(p('contexts'), 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 3 in length.');
  // dm_permission is deprecated in favour of contexts: false (with no contexts given) means guilds only.
  if (dmp === false && body.contexts === undefined && !base) contexts = [0];

  let handler: unknown = body.handler === undefined ? (base?.handler ?? null) : body.handler;
  if (type === CommandType.PrimaryEntryPoint) {
    if (opts.guild) errs.add(p('type'), 'APPLICATION_COMMAND_ENTRY_POINT_GUILD', 'Entry point commands can only be global.');
    if (handler !== EntryPointHandler.AppHandler && handler !== EntryPointHandler.PlatformLaunchActivity) {
      errs.add(p('handler'), handler === null ? 'BASE_TYPE_REQUIRED' : 'BASE_TYPE_CHOICES', handler === null ? 'This field is required' : 'Value must be one of (1, 2).');
    }
  } else if (handler !== null && handler !== undefined) {
    errs.add(p('handler'), 'APPLICATION_COMMAND_HANDLER_NOT_ALLOWED', 'Only PRIMARY_ENTRY_POINT commands have a handler.');
    handler = null;
  }

  const fields: CommandFields = {
    type,
    name: String(name ?? ''),
    name_localizations: nameLoc,
    description: String(description ?? ''),
    description_localizations: descLoc,
    options,
    default_member_permissions: dmpBits as string | null,
    dm_permission: dmp as boolean | null,
    nsfw: nsfw as boolean,
    integration_types: integrationTypes,
    contexts,
    handler: handler as number | null,
  };
  if (errs.count === before && commandChars(fields) > MAX_COMMAND_CHARS) errs.add(prefix, 'APPLICATION_COMMAND_TOO_LARGE', `Command exceeds maximum size (${MAX_COMMAND_CHARS})`);
  return errs.count === before ? fields : null;
}

/** Characters counted against the 8,000 cap: names, descriptions, option names/descriptions/choice names and values (longest locale each). */
function commandChars(c: CommandFields): number {
  const longest = (s: string, loc: Record<string, string> | null) => Math.max(s.length, ...Object.values(loc ?? {}).map((x) => x.length));
  let n = longest(c.name, c.name_localizations) + longest(c.description, c.description_localizations);
  const walk = (opts: unknown[]) => {
    for (const o of opts as Record<string, unknown>[]) {
      n += longest(String(o.name), (o.name_localizations as Record<string, string>) ?? null) + longest(String(o.description), (o.description_localizations as Record<string, string>) ?? null);
      for (const ch of (o.choices as Record<string, unknown>[] | undefined) ?? []) n += longest(String(ch.name), (ch.name_localizations as Record<string, string>) ?? null) + String(ch.value).length;
      if (Array.isArray(o.options)) walk(o.options);
    }
  };
  walk(c.options);
  return n;
}

const VALUE_TYPES = new Set<number>([OptionType.String, OptionType.Integer, OptionType.Number]);

/** Options of a level: at most 25, unique names, required before optional, sub-commands nested by the public rules. */
function checkOptions(errs: FieldErrors, path: Path, raw: unknown, depth: number): unknown[] {
  if (!Array.isArray(raw)) {
    errs.add(path, 'BASE_TYPE_LIST', 'Must be a list.');
    return [];
  }
  if (raw.length > MAX_OPTIONS) errs.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_OPTIONS} or fewer in length.`);
  const names = new Set<string>();
  let sawOptional = false;
  let subs = 0;
  const out: unknown[] = [];
  raw.forEach((o, i) => {
    const p = [...path, i];
    if (!isObj(o)) {
      errs.add(p, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
      return;
    }
    const t = o.type;
    if (!isInt(t) || t < 1 || t > 11) {
      errs.add([...p, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).');
      return;
    }
    const isSub = t === OptionType.SubCommand || t === OptionType.SubCommandGroup;
    if (isSub) subs++;
    if (isSub && depth > 0 && (t === OptionType.SubCommandGroup || depth > 1)) errs.add([...p, 'type'], 'APPLICATION_COMMAND_OPTION_INVALID_NESTING', 'Sub-command groups hold only sub-commands, and sub-commands hold no sub-commands.');
    if (checkString(errs, [...p, 'name'], o.name, 1, 32)) {
      if (!CHAT_INPUT_NAME.test(o.name as string) || o.name !== (o.name as string).toLowerCase()) errs.add([...p, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
      if (names.has(o.name as string)) errs.add([...p, 'name'], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique.');
      names.add(o.name as string);
    }
    checkString(errs, [...p, 'description'], o.description, 1, 100);
    checkLocalizations(errs, [...p, 'name_localizations'], o.name_localizations, (lp, s) => {
      if (checkString(errs, lp, s, 1, 32) && !CHAT_INPUT_NAME.test(s as string)) errs.add(lp, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    });
    checkLocalizations(errs, [...p, 'description_localizations'], o.description_localizations, (lp, s) => checkString(errs, lp, s, 1, 100));
    if (o.required !== undefined && typeof o.required !== 'boolean') errs.add([...p, 'required'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
    if (isSub && o.required === true) errs.add([...p, 'required'], 'APPLICATION_COMMAND_OPTION_REQUIRED_INVALID', 'Sub-commands cannot be required.');
    if (!isSub) {
      if (o.required === true && sawOptional) errs.add([...p, 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options');
      if (o.required !== true) sawOptional = true;
    }
    const choices = o.choices;
    if (choices !== undefined && choices !== null) {
      if (!VALUE_TYPES.has(t)) errs.add([...p, 'choices'], 'APPLICATION_COMMAND_OPTION_CHOICES_NOT_ALLOWED', 'Only string, integer and number options can have choices.');
      else if (!Array.isArray(choices)) errs.add([...p, 'choices'], 'BASE_TYPE_LIST', 'Must be a list.');
      else {
        if (choices.length > MAX_CHOICES) errs.add([...p, 'choices'], 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_CHOICES} or fewer in length.`);
        choices.forEach((c, j) => {
          const cp = [...p, 'choices', j];
          if (!isObj(c)) return errs.add(cp, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
          checkString(errs, [...cp, 'name'], c.name, 1, 100);
          checkLocalizations(errs, [...cp, 'name_localizations'], c.name_localizations, (lp, s) => checkString(errs, lp, s, 1, 100));
          if (t === OptionType.String) checkString(errs, [...cp, 'value'], c.value, 1, 100);
          else if (typeof c.value !== 'number' || (t === OptionType.Integer && !Number.isInteger(c.value))) errs.add([...cp, 'value'], t === OptionType.Integer ? 'NUMBER_TYPE_COERCE' : 'NUMBER_TYPE_COERCE', 'Value is not a valid number.');
        });
        if (o.autocomplete === true && choices.length > 0) errs.add([...p, 'autocomplete'], 'APPLICATION_COMMAND_AUTOCOMPLETE_AND_CHOICES', 'Autocomplete cannot be set with choices.');
      }
    }
    if (o.autocomplete !== undefined && (typeof o.autocomplete !== 'boolean' || (o.autocomplete && !VALUE_TYPES.has(t)))) errs.add([...p, 'autocomplete'], 'APPLICATION_COMMAND_AUTOCOMPLETE_INVALID', 'Only string, integer and number options can autocomplete.');
    if (o.min_value !== undefined || o.max_value !== undefined) {
      if (t !== OptionType.Integer && t !== OptionType.Number) errs.add([...p, 'min_value'], 'APPLICATION_COMMAND_OPTION_MIN_MAX_NOT_ALLOWED', 'Only integer and number options have min_value and max_value.');
      else if (typeof o.min_value === 'number' && typeof o.max_value === 'number' && o.min_value > o.max_value) errs.add([...p, 'min_value'], 'NUMBER_TYPE_MAX', 'min_value must not exceed max_value.');
    }
    if (o.min_length !== undefined || o.max_length !== undefined) {
      if (t !== OptionType.String) errs.add([...p, 'min_length'], 'APPLICATION_COMMAND_OPTION_LENGTH_NOT_ALLOWED', 'Only string options have min_length and max_length.');
      if (o.min_length !== undefined && (!isInt(o.min_length) || o.min_length < 0 || o.min_length > 6000)) errs.add([...p, 'min_length'], 'NUMBER_TYPE_MAX', 'Must be between 0 and 6000.');
      if (o.max_length !== undefined && (!isInt(o.max_length) || o.max_length < 1 || o.max_length > 6000)) errs.add([...p, 'max_length'], 'NUMBER_TYPE_MAX', 'Must be between 1 and 6000.');
    }
    if (o.channel_types !== undefined && t !== OptionType.Channel) errs.add([...p, 'channel_types'], 'APPLICATION_COMMAND_OPTION_CHANNEL_TYPES_NOT_ALLOWED', 'Only channel options have channel_types.');
    let nested: unknown[] | undefined;
    if (isSub) {
      const inner = o.options ?? [];
      nested = checkOptions(errs, [...p, 'options'], inner, depth + 1);
      if (t === OptionType.SubCommandGroup) {
        (inner as Record<string, unknown>[]).forEach((x, j) => {
          if (isObj(x) && x.type !== OptionType.SubCommand) errs.add([...p, 'options', j, 'type'], 'APPLICATION_COMMAND_OPTION_INVALID_NESTING', 'Sub-command groups hold only sub-commands.');
        });
      } else {
        (inner as Record<string, unknown>[]).forEach((x, j) => {
          if (isObj(x) && (x.type === OptionType.SubCommand || x.type === OptionType.SubCommandGroup)) errs.add([...p, 'options', j, 'type'], 'APPLICATION_COMMAND_OPTION_INVALID_NESTING', 'Sub-commands cannot hold sub-commands.');
        });
      }
    } else if (o.options !== undefined) errs.add([...p, 'options'], 'APPLICATION_COMMAND_OPTIONS_NOT_ALLOWED', 'Only sub-commands and groups have options.');
    out.push(cleanOption(o, nested));
  });
  if (subs > 0 && subs !== raw.length) errs.add(path, 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-commands and groups cannot be mixed with other options.');
  return out;
}

/** Keeps the public option fields only (what the API answers with). */
function cleanOption(o: Record<string, unknown>, nested: unknown[] | undefined): Record<string, unknown> {
  const keep = ['type', 'name', 'name_localizations', 'description', 'description_localizations', 'required', 'choices', 'channel_types', 'min_value', 'max_value', 'min_length', 'max_length', 'autocomplete'];
  const out: Record<string, unknown> = {};
  for (const k of keep) if (o[k] !== undefined && o[k] !== null) out[k] = o[k];
  if (out.required === false) delete out.required;
  if (nested) out.options = nested;
  return out;
}
