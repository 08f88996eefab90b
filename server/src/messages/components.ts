import { MessageErrors as E } from './messageErrors.ts';

/** Message flag IS_COMPONENTS_V2 (1<<15): components are the whole message. */
export const IS_COMPONENTS_V2 = 1 << 15;
const MAX_V2_COMPONENTS = 40;
const MAX_LEGACY_ROWS = 5;
const MAX_TEXT_DISPLAY_CHARS = 4000;
/** SKU flag AVAILABLE (public value): a premium button may only name such a SKU. */
const SKU_AVAILABLE = 1 << 2;

/** Component types (public values). */
export const ComponentType = {
  ActionRow: 1, Button: 2, StringSelect: 3, TextInput: 4, UserSelect: 5, RoleSelect: 6, MentionableSelect: 7, ChannelSelect: 8,
  Section: 9, TextDisplay: 10, Thumbnail: 11, MediaGallery: 12, File: 13, Separator: 14, Container: 17, Label: 18,
} as const;
const T = ComponentType;
const SELECTS = new Set<number>([T.StringSelect, T.UserSelect, T.RoleSelect, T.MentionableSelect, T.ChannelSelect]);
/** What may stand at the top of a V2 message (and, minus Container, inside a Container). */
const V2_TOP = new Set<number>([T.ActionRow, T.Section, T.TextDisplay, T.MediaGallery, T.File, T.Separator, T.Container]);

type Path = string[];
type Obj = Record<string, unknown>;

function fail(path: Path, code: string, message: string): never {
  throw E.invalidForm(path, code, message);
}

function str(o: Obj, key: string, path: Path, max: number, required: boolean): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) fail([...path, key], 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  if (typeof v !== 'string') fail([...path, key], 'BASE_TYPE_STRING', 'Must be a string.');
  if (v.length > max || (required && v.length === 0)) fail([...path, key], 'BASE_TYPE_BAD_LENGTH', `Must be between ${required ? 1 : 0} and ${max} in length.`);
  return v;
}

/** Schemes a link button may open (the public API's: the web, and the client's own deep links). */
const LINK_SCHEMES = ['http', 'https', 'discord'];

/** A link button's URL: well formed, and never a script (`javascript:`, `data:`, ...). */
function linkUrl(o: Obj, path: Path): void {
  const raw = str(o, 'url', path, 512, true)!;
  let scheme: string;
  try {
    scheme = new URL(raw).protocol.slice(0, -1);
  } catch {
    fail([...path, 'url'], 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
  }
  if (!LINK_SCHEMES.includes(scheme)) fail([...path, 'url'], 'URL_TYPE_INVALID_SCHEME', `Scheme "${scheme}" is not supported. Scheme must be one of (${LINK_SCHEMES.map((x) => `'${x}'`).join(', ')}).`);
}

function list(o: Obj, key: string, path: Path, min: number, max: number): unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) fail([...path, key], 'BASE_TYPE_REQUIRED', 'This field is required');
  if (v.length < min || v.length > max) fail([...path, key], 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
  return v;
}

function media(o: Obj, key: string, path: Path): void {
  const m = o[key];
  if (typeof m !== 'object' || m === null) fail([...path, key], 'BASE_TYPE_REQUIRED', 'This field is required');
  str(m as Obj, 'url', [...path, key], 2048, true);
}

/**
 * Checks a message's components against the public rules and returns what a premium button
 * names (for the SKU check). Each violation answers 50035 at its field path.
 */
export function checkComponents(components: unknown[], flags: number): { count: number; skus: { id: string; path: string[] }[] } {
  const v2 = (flags & IS_COMPONENTS_V2) !== 0;
  const skus: { id: string; path: string[] }[] = [];
  let count = 0;
  let textChars = 0;

  const button = (o: Obj, path: Path) => {
    const style = o.style;
    if (typeof style !== 'number' || !Number.isInteger(style) || style < 1 || style > 6) fail([...path, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of (1, 2, 3, 4, 5, 6).');
    if (style === 5) {
      linkUrl(o, path);
      if (o.custom_id !== undefined) fail([...path, 'custom_id'], 'COMPONENT_INVALID_FIELD', 'A link button cannot have a custom_id.');
    } else if (style === 6) {
      const sku = str(o, 'sku_id', path, 20, true)!;
      if (!/^\d{1,20}$/.test(sku)) fail([...path, 'sku_id'], 'NUMBER_TYPE_COERCE', `Value "${sku}" is not snowflake.`);
      if (o.custom_id !== undefined || o.label !== undefined || o.url !== undefined || o.emoji !== undefined) fail([...path, 'sku_id'], 'COMPONENT_INVALID_FIELD', 'A premium button has only sku_id.');
      skus.push({ id: sku, path: [...path, 'sku_id'] });
    } else {
      str(o, 'custom_id', path, 100, true);
      if (o.url !== undefined) fail([...path, 'url'], 'COMPONENT_INVALID_FIELD', 'Only link buttons have a url.');
    }
    if (style !== 6) str(o, 'label', path, 80, false);
  };

  const select = (o: Obj, path: Path) => {
    str(o, 'custom_id', path, 100, true);
    str(o, 'placeholder', path, 150, false);
    if (o.type === T.StringSelect) {
      for (const [i, opt] of list(o, 'options', path, 1, 25).entries()) {
        const p = [...path, 'options', String(i)];
        if (typeof opt !== 'object' || opt === null) fail(p, 'MODEL_TYPE_CONVERT', 'Must be an object.');
        str(opt as Obj, 'label', p, 100, true);
        str(opt as Obj, 'value', p, 100, true);
        str(opt as Obj, 'description', p, 100, false);
      }
    }
  };

  const one = (c: unknown, path: Path, where: 'top' | 'row' | 'container' | 'section' | 'accessory' | 'label'): void => {
    if (typeof c !== 'object' || c === null || Array.isArray(c)) fail(path, 'MODEL_TYPE_CONVERT', 'Must be an object.');
    const o = c as Obj;
    const type = o.type;
    if (typeof type !== 'number' || !Object.values(T).includes(type as never)) fail([...path, 'type'], 'BASE_TYPE_CHOICES', 'Unknown component type.');
    count++;
    const allowed =
      where === 'top' ? (v2 ? V2_TOP.has(type) : type === T.ActionRow)
      : where === 'row' ? type === T.Button || SELECTS.has(type)
      : where === 'container' ? V2_TOP.has(type) && type !== T.Container
      : where === 'section' ? type === T.TextDisplay
      : where === 'accessory' ? type === T.Thumbnail || type === T.Button
      : SELECTS.has(type) || type === T.TextInput;
    if (!allowed || type === T.TextInput || type === T.Label) fail([...path, 'type'], 'COMPONENT_TYPE_INVALID', `Component type ${type} is not allowed here.`);
    if (type >= T.Section && !v2) fail([...path, 'type'], 'COMPONENT_TYPE_INVALID', 'This component type needs the IS_COMPONENTS_V2 flag.');
    switch (type) {
      case T.ActionRow: {
        const kids = list(o, 'components', path, 1, 5);
        kids.forEach((k, i) => one(k, [...path, 'components', String(i)], 'row'));
        const selects = kids.filter((k) => SELECTS.has((k as Obj).type as number)).length;
        // A row holds up to 5 buttons, or exactly one select.
        if (selects > 0 && kids.length > 1) fail([...path, 'components'], 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'A select menu fills its action row.');
        return;
      }
      case T.Button:
        return button(o, path);
      case T.Section: {
        list(o, 'components', path, 1, 3).forEach((k, i) => one(k, [...path, 'components', String(i)], 'section'));
        if (o.accessory === undefined) fail([...path, 'accessory'], 'BASE_TYPE_REQUIRED', 'This field is required');
        return one(o.accessory, [...path, 'accessory'], 'accessory');
      }
      case T.TextDisplay:
        textChars += str(o, 'content', path, MAX_TEXT_DISPLAY_CHARS, true)!.length;
        return;
      case T.Thumbnail:
        media(o, 'media', path);
        str(o, 'description', path, 1024, false);
        return;
      case T.MediaGallery:
        for (const [i, item] of list(o, 'items', path, 1, 10).entries()) {
          const p = [...path, 'items', String(i)];
          if (typeof item !== 'object' || item === null) fail(p, 'MODEL_TYPE_CONVERT', 'Must be an object.');
          media(item as Obj, 'media', p);
          str(item as Obj, 'description', p, 1024, false);
        }
        return;
      case T.File:
        media(o, 'file', path);
        return;
      case T.Separator:
        if (o.spacing !== undefined && o.spacing !== 1 && o.spacing !== 2) fail([...path, 'spacing'], 'BASE_TYPE_CHOICES', 'Value must be one of (1, 2).');
        return;
      case T.Container:
        list(o, 'components', path, 1, MAX_V2_COMPONENTS).forEach((k, i) => one(k, [...path, 'components', String(i)], 'container'));
        if (o.accent_color !== undefined && o.accent_color !== null && !(Number.isInteger(o.accent_color) && (o.accent_color as number) >= 0 && (o.accent_color as number) <= 0xffffff)) fail([...path, 'accent_color'], 'NUMBER_TYPE_MAX', 'Must be a colour.');
        return;
      default:
        return select(o, path);
    }
  };

  if (!v2 && components.length > MAX_LEGACY_ROWS) fail(['components'], 'BASE_TYPE_BAD_LENGTH', `Must be ${MAX_LEGACY_ROWS} or fewer in length.`);
  components.forEach((c, i) => one(c, ['components', String(i)], 'top'));
  if (v2 && count > MAX_V2_COMPONENTS) fail(['components'], 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', `A message can hold at most ${MAX_V2_COMPONENTS} components.`);
  if (textChars > MAX_TEXT_DISPLAY_CHARS) fail(['components'], 'BASE_TYPE_BAD_LENGTH', `Text displays hold at most ${MAX_TEXT_DISPLAY_CHARS} characters in total.`);
  return { count, skus };
}

/** Whether a SKU row may be named by a premium button of `applicationId`'s messages. */
export function skuUsable(sku: { application_id: string; flags: number } | undefined, applicationId: string | null): boolean {
  return sku !== undefined && applicationId !== null && sku.application_id === applicationId && (sku.flags & SKU_AVAILABLE) !== 0;
}
