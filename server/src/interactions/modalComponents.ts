import { FieldErrors } from '../applications/formErrors.ts';

/**
 * The modal rules of the spec: Label holds one Text Input, select, Radio Group, Checkbox Group,
 * Checkbox or File Upload; `label` is not allowed on a Text Input inside a Label; a String Select
 * in a modal is `required` by default and may not be `disabled`; Checkbox Group `min_values`/
 * `max_values`; Radio Group `required`; File Upload 0-10 files, `required`, file types; ActionRow
 * + Text Input accepted as deprecated. Every problem is one entry of one 50035 tree.
 */
export const ModalComponent = {
  ActionRow: 1, StringSelect: 3, TextInput: 4, UserSelect: 5, RoleSelect: 6, MentionableSelect: 7, ChannelSelect: 8,
  TextDisplay: 10, Label: 18, FileUpload: 19, RadioGroup: 21, CheckboxGroup: 22, Checkbox: 23,
} as const;
const C = ModalComponent;
const IN_LABEL = new Set<number>([C.TextInput, C.StringSelect, C.UserSelect, C.RoleSelect, C.MentionableSelect, C.ChannelSelect, C.FileUpload, C.RadioGroup, C.CheckboxGroup, C.Checkbox]);
const SELECTS = new Set<number>([C.StringSelect, C.UserSelect, C.RoleSelect, C.MentionableSelect, C.ChannelSelect]);
const MAX_TOP = 5;

type Obj = Record<string, unknown>;
type Path = (string | number)[];
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** An input of a modal, for checking what a user submits. */
export interface ModalInput {
  type: number;
  custom_id: string;
  required: boolean;
  min_length?: number;
  max_length?: number;
  min_values?: number;
  max_values?: number;
  options?: string[];
  /** File Upload: the MIME types (image/png, image/*) or extensions (.png) it takes. */
  file_types?: string[];
}

class Checker {
  readonly inputs: ModalInput[] = [];
  private readonly ids = new Set<string>();
  constructor(readonly errs: FieldErrors) {}

  str(o: Obj, key: string, p: Path, min: number, max: number, required: boolean): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) {
      if (required) this.errs.add([...p, key], 'BASE_TYPE_REQUIRED', 'This field is required');
      return undefined;
    }
    if (typeof v !== 'string') return void this.errs.add([...p, key], 'BASE_TYPE_STRING', 'Must be a string.');
    if (v.length < min || v.length > max) this.errs.add([...p, key], 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
    return v;
  }

  int(o: Obj, key: string, p: Path, min: number, max: number): number | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!isInt(v) || v < min || v > max) {
      this.errs.add([...p, key], 'NUMBER_TYPE_MAX', `Must be an integer between ${min} and ${max}.`);
      return undefined;
    }
    return v;
  }

  bool(o: Obj, key: string, p: Path): boolean | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') {
      this.errs.add([...p, key], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
      return undefined;
    }
    return v;
  }

  customId(o: Obj, p: Path): string {
    const id = this.str(o, 'custom_id', p, 1, 100, true) ?? '';
    if (id && this.ids.has(id)) this.errs.add([...p, 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
    this.ids.add(id);
    return id;
  }

  minMax(o: Obj, p: Path, lo: number, hi: number, count?: number): { min: number | undefined; max: number | undefined } {
    const min = this.int(o, 'min_values', p, lo, hi);
    const max = this.int(o, 'max_values', p, Math.max(1, lo), hi);
    if (min !== undefined && max !== undefined && min > max) this.errs.add([...p, 'min_values'], 'BASE_TYPE_BAD_LENGTH', 'min_values must not exceed max_values.');
    if (count !== undefined && min !== undefined && min > count) this.errs.add([...p, 'min_values'], 'BASE_TYPE_BAD_LENGTH', 'min_values must not exceed the number of options.');
    return { min, max };
  }

  options(o: Obj, p: Path, min: number, max: number): string[] {
    const v = o.options;
    if (!Array.isArray(v)) {
      this.errs.add([...p, 'options'], 'BASE_TYPE_REQUIRED', 'This field is required');
      return [];
    }
    if (v.length < min || v.length > max) this.errs.add([...p, 'options'], 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
    const values: string[] = [];
    v.forEach((opt, i) => {
      const op = [...p, 'options', i];
      if (!isObj(opt)) return this.errs.add(op, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
      this.str(opt, 'label', op, 1, 100, true);
      const value = this.str(opt, 'value', op, 1, 100, true);
      this.str(opt, 'description', op, 0, 100, false);
      if (value !== undefined) {
        if (values.includes(value)) this.errs.add([...op, 'value'], 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED', 'Option values must be unique.');
        values.push(value);
      }
    });
    return values;
  }

  /** A Text Input; `inLabel`: the Label carries the label, so its own `label` is an error. */
  textInput(o: Obj, p: Path, inLabel: boolean): void {
    const custom_id = this.customId(o, p);
    if (inLabel && o.label !== undefined) this.errs.add([...p, 'label'], 'COMPONENT_LABEL_NOT_ALLOWED', 'A Text Input inside a Label cannot have a label.');
    if (!inLabel) this.str(o, 'label', p, 1, 45, true);
    if (o.style !== 1 && o.style !== 2) this.errs.add([...p, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of (1, 2).');
    const min = this.int(o, 'min_length', p, 0, 4000);
    const max = this.int(o, 'max_length', p, 1, 4000);
    if (min !== undefined && max !== undefined && min > max) this.errs.add([...p, 'min_length'], 'BASE_TYPE_BAD_LENGTH', 'min_length must not exceed max_length.');
    this.str(o, 'value', p, 0, 4000, false);
    this.str(o, 'placeholder', p, 0, 100, false);
    const required = this.bool(o, 'required', p) ?? true;
    this.inputs.push({ type: C.TextInput, custom_id, required, ...(min !== undefined ? { min_length: min } : {}), ...(max !== undefined ? { max_length: max } : {}) });
  }

  inner(o: Obj, p: Path): void {
    const t = o.type as number;
    if (t === C.TextInput) return this.textInput(o, p, true);
    const custom_id = this.customId(o, p);
    if (SELECTS.has(t)) {
      // In a modal a String Select may not be disabled (spec: an error), and is required unless told otherwise.
      if (t === C.StringSelect && o.disabled !== undefined) this.errs.add([...p, 'disabled'], 'COMPONENT_DISABLED_NOT_ALLOWED', 'A String Select in a modal cannot be disabled.');
      const options = t === C.StringSelect ? this.options(o, p, 1, 25) : undefined;
      const { min, max } = this.minMax(o, p, 0, 25, options?.length);
      const required = this.bool(o, 'required', p) ?? true;
      this.str(o, 'placeholder', p, 0, 150, false);
      this.inputs.push({ type: t, custom_id, required, ...(min !== undefined ? { min_values: min } : {}), ...(max !== undefined ? { max_values: max } : {}), ...(options ? { options } : {}) });
    } else if (t === C.RadioGroup) {
      const options = this.options(o, p, 2, 10);
      const required = this.bool(o, 'required', p) ?? true;
      this.inputs.push({ type: t, custom_id, required, options, min_values: required ? 1 : 0, max_values: 1 });
    } else if (t === C.CheckboxGroup) {
      const options = this.options(o, p, 1, 10);
      const { min, max } = this.minMax(o, p, 0, 10, options.length);
      const required = this.bool(o, 'required', p) ?? (min === undefined || min > 0);
      this.inputs.push({ type: t, custom_id, required, options, ...(min !== undefined ? { min_values: min } : {}), ...(max !== undefined ? { max_values: max } : {}) });
    } else if (t === C.Checkbox) {
      this.bool(o, 'default', p);
      this.inputs.push({ type: t, custom_id, required: false });
    } else if (t === C.FileUpload) {
      const { min, max } = this.minMax(o, p, 0, 10);
      const required = this.bool(o, 'required', p) ?? true;
      const types = o.file_types;
      if (types !== undefined && (!Array.isArray(types) || types.length > 20 || types.some((x) => typeof x !== 'string' || !/^(\.[A-Za-z0-9]{1,16}|[a-z]+\/[a-z0-9.+*-]{1,64})$/.test(x)))) {
        this.errs.add([...p, 'file_types'], 'BASE_TYPE_BAD_LENGTH', 'Up to 20 file types, as MIME types (image/png, image/*) or extensions (.png).');
      }
      this.inputs.push({ type: t, custom_id, required, ...(min !== undefined ? { min_values: min } : {}), ...(max !== undefined ? { max_values: max } : {}), ...(Array.isArray(types) ? { file_types: types as string[] } : {}) });
    }
  }
}

/** Whether a file (name and MIME type) is one a File Upload takes. */
export function fileTypeAllowed(types: string[] | undefined, filename: string, contentType: string): boolean {
  if (!types || types.length === 0) return true;
  const name = filename.toLowerCase();
  const mime = contentType.toLowerCase();
  return types.some((t) => (t.startsWith('.') ? name.endsWith(t.toLowerCase()) : t.endsWith('/*') ? mime.startsWith(t.slice(0, -1).toLowerCase()) : mime === t.toLowerCase()));
}

/** Checks a MODAL (9) response's `data`; returns the inputs a submission must fill. Problems go to `errs` under `prefix`. */
export function checkModal(data: unknown, errs: FieldErrors, prefix: Path = ['data']): ModalInput[] {
  const k = new Checker(errs);
  if (!isObj(data)) {
    errs.add(prefix, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
    return [];
  }
  k.str(data, 'custom_id', prefix, 1, 100, true);
  k.str(data, 'title', prefix, 1, 45, true);
  const comps = data.components;
  if (!Array.isArray(comps) || comps.length < 1 || comps.length > MAX_TOP) {
    errs.add([...prefix, 'components'], Array.isArray(comps) ? 'BASE_TYPE_BAD_LENGTH' : 'BASE_TYPE_REQUIRED', `Must be between 1 and ${MAX_TOP} in length.`);
    return [];
  }
  comps.forEach((c, i) => {
    const p = [...prefix, 'components', i];
    if (!isObj(c)) return errs.add(p, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
    if (c.type === C.Label) {
      k.str(c, 'label', p, 1, 45, true);
      k.str(c, 'description', p, 0, 100, false);
      const inner = c.component;
      if (!isObj(inner)) return errs.add([...p, 'component'], 'BASE_TYPE_REQUIRED', 'This field is required');
      if (!IN_LABEL.has(inner.type as number)) return errs.add([...p, 'component', 'type'], 'COMPONENT_TYPE_INVALID', 'A Label holds a Text Input, a select, a Radio Group, a Checkbox Group, a Checkbox or a File Upload.');
      k.inner(inner, [...p, 'component']);
    } else if (c.type === C.TextDisplay) {
      k.str(c, 'content', p, 1, 4000, true);
    } else if (c.type === C.ActionRow) {
      // Deprecated (spec), still accepted: one Text Input in a row, with its own label.
      const row = c.components;
      if (!Array.isArray(row) || row.length !== 1 || !isObj(row[0]) || row[0].type !== C.TextInput) {
        return errs.add([...p, 'components'], 'COMPONENT_TYPE_INVALID', 'An action row in a modal holds exactly one Text Input (deprecated: use a Label).');
      }
      k.textInput(row[0], [...p, 'components', 0], false);
    } else {
      errs.add([...p, 'type'], 'COMPONENT_TYPE_INVALID', 'A modal holds Labels, Text Displays and (deprecated) action rows with a Text Input.');
    }
  });
  return k.inputs;
}

/**
 * Checks what a user submits for a modal (the web app's MODAL_SUBMIT): every required input has
 * a value, lengths and counts hold, and chosen values are among the options. Returns the
 * submission components in the public shape (Label: `{type: 18, component}`; row: `{type: 1, components}`).
 */
export function checkSubmission(inputs: ModalInput[], values: Record<string, unknown>, errs: FieldErrors, modal: { components: unknown[] }): unknown[] {
  const byId = new Map(inputs.map((i) => [i.custom_id, i]));
  for (const key of Object.keys(values)) if (!byId.has(key)) errs.add(['data', 'components', key], 'COMPONENT_UNKNOWN', 'No such input in the modal.');
  const valueOf = (input: ModalInput): Record<string, unknown> => {
    const v = values[input.custom_id];
    const p = ['data', 'components', input.custom_id];
    if (input.type === C.TextInput) {
      const s = typeof v === 'string' ? v : '';
      if (v !== undefined && typeof v !== 'string') errs.add(p, 'BASE_TYPE_STRING', 'Must be a string.');
      if (input.required && s === '') errs.add(p, 'BASE_TYPE_REQUIRED', 'This field is required');
      else if (s !== '' && ((input.min_length !== undefined && s.length < input.min_length) || s.length > (input.max_length ?? 4000))) errs.add(p, 'BASE_TYPE_BAD_LENGTH', `Must be between ${input.min_length ?? 0} and ${input.max_length ?? 4000} in length.`);
      return { type: C.TextInput, custom_id: input.custom_id, value: s };
    }
    if (input.type === C.Checkbox) return { type: C.Checkbox, custom_id: input.custom_id, value: v === true };
    const list = v === undefined ? [] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
    if (list === null) {
      errs.add(p, 'BASE_TYPE_LIST', 'Must be a list of strings.');
      return { type: input.type, custom_id: input.custom_id, values: [] };
    }
    const min = input.min_values ?? (input.required ? 1 : 0);
    if ((input.required && list.length === 0) || (list.length > 0 && list.length < min) || list.length > (input.max_values ?? (input.type === C.RadioGroup ? 1 : 25))) errs.add(p, 'BASE_TYPE_BAD_LENGTH', `Choose between ${input.required ? Math.max(1, min) : 0} and ${input.max_values ?? 1}.`);
    if (input.options) list.forEach((x) => input.options!.includes(x) || errs.add(p, 'BASE_TYPE_CHOICES', `Value ${x} is not an option.`));
    if (input.type === C.RadioGroup) return { type: C.RadioGroup, custom_id: input.custom_id, value: list[0] ?? null };
    return { type: input.type, custom_id: input.custom_id, values: list };
  };
  return modal.components.flatMap((c): unknown[] => {
    const comp = c as Obj;
    if (comp.type === C.Label) {
      const inner = comp.component as Obj;
      const input = byId.get(inner.custom_id as string);
      return input ? [{ type: C.Label, ...(comp.id !== undefined ? { id: comp.id } : {}), component: valueOf(input) }] : [];
    }
    if (comp.type === C.ActionRow) {
      const inner = (comp.components as Obj[])[0]!;
      const input = byId.get(inner.custom_id as string);
      return input ? [{ type: C.ActionRow, components: [valueOf(input)] }] : [];
    }
    if (comp.type === C.TextDisplay) return [{ type: C.TextDisplay, ...(comp.id !== undefined ? { id: comp.id } : {}) }];
    return [];
  });
}
