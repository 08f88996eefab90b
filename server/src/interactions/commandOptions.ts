import { type EventBus } from '../events/EventBus.ts';
import type { Store } from '../storage/Store.ts';
import { GuildView } from '../guilds/GuildAccess.ts';
import { memberWire, roleWire, userWire } from '../guilds/guildWire.ts';
import { has, Permission } from '../guilds/permissions.ts';
import { privateChannelsFor } from '../messages/privateChannels.ts';
import { OptionType } from './commandRules.ts';
import { InteractionErrors as E } from './interactionErrors.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const SNOWFLAKE = /^\d{1,20}$/;

/**
 * A command's option values checked against its definitions (for InteractionService): types,
 * required, choices and ranges, with the users, members, channels and roles they name resolved.
 */
export class CommandOptions {
  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
  ) {}

  /** Option values against the command's definitions (types, required, choices, ranges); fills `resolved`. */
  async check(view: GuildView, channelId: string, defs: Obj[], raw: unknown, path: (string | number)[], resolved: Obj, autocomplete: boolean): Promise<Obj[]> {
    const given = raw === undefined ? [] : raw;
    if (!Array.isArray(given)) throw E.invalidForm(path, 'BASE_TYPE_LIST', 'Must be a list.');
    const out: Obj[] = [];
    for (const [i, o] of given.entries()) {
      const p = [...path, i];
      if (!isObj(o)) throw E.invalidForm(p, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
      const def = defs.find((d) => d.name === o.name);
      if (!def) throw E.invalidForm([...p, 'name'], 'APPLICATION_COMMAND_OPTION_UNKNOWN', 'Unknown option.');
      const t = def.type as number;
      if (t === OptionType.SubCommand || t === OptionType.SubCommandGroup) {
        out.push({ type: t, name: def.name, options: await this.check(view, channelId, (def.options as Obj[]) ?? [], o.options, [...p, 'options'], resolved, autocomplete) });
        continue;
      }
      const v = o.value;
      const focused = autocomplete && o.focused === true;
      const bad = (msg: string) => E.invalidForm([...p, 'value'], 'APPLICATION_COMMAND_OPTION_INVALID_VALUE', msg);
      if (focused) {
        if (typeof v !== 'string' && typeof v !== 'number') throw bad('Invalid value.');
        out.push({ type: t, name: def.name, value: v, focused: true });
        continue;
      }
      if (t === OptionType.String) {
        if (typeof v !== 'string' || v.length > ((def.max_length as number) ?? 6000) || v.length < ((def.min_length as number) ?? 0)) throw bad('Invalid string.');
      } else if (t === OptionType.Integer || t === OptionType.Number) {
        if (typeof v !== 'number' || (t === OptionType.Integer && !Number.isInteger(v)) || (def.min_value !== undefined && v < (def.min_value as number)) || (def.max_value !== undefined && v > (def.max_value as number))) throw bad('Invalid number.');
      } else if (t === OptionType.Boolean) {
        if (typeof v !== 'boolean') throw bad('Invalid boolean.');
      } else if (t === OptionType.User || t === OptionType.Mentionable) {
        if (typeof v !== 'string' || !((await this.resolveUser(view, v, resolved)) || (t === OptionType.Mentionable && this.resolveRole(view, v, resolved)))) throw bad('Unknown user.');
      } else if (t === OptionType.Role) {
        if (typeof v !== 'string' || !this.resolveRole(view, v, resolved)) throw bad('Unknown role.');
      } else if (t === OptionType.Channel) {
        const c = typeof v === 'string' && SNOWFLAKE.test(v) ? await this.store.guilds.channel(v) : undefined;
        if (!c || !(await this.resolveChannel(view, v as string, {}))) throw bad('Unknown channel.');
        if (Array.isArray(def.channel_types) && !(def.channel_types as number[]).includes(c.type)) throw bad('Channel type not allowed.');
        await this.resolveChannel(view, v as string, resolved);
      } else throw bad('This option type cannot be sent from here.');
      const choices = def.choices as Obj[] | undefined;
      if (choices && choices.length > 0 && !choices.some((c) => c.value === v)) throw bad('Not one of the choices.');
      out.push({ type: t, name: def.name, value: v });
    }
    if (!autocomplete) {
      for (const d of defs) if (d.required === true && !given.some((o: Obj) => o.name === d.name)) throw E.invalidForm(path, 'APPLICATION_COMMAND_OPTION_REQUIRED', `Option ${String(d.name)} is required.`);
    }
    return out;
  }

  async resolveUser(view: GuildView, id: string, resolved: Obj): Promise<boolean> {
    // In a DM or group DM: its participants, as users (no members outside a guild).
    const dm = privateChannelsFor(this.store, this.bus).of(view);
    if (dm) {
      const u = dm.userIds.includes(id) ? await this.store.users.get(id) : undefined;
      if (!u) return false;
      ((resolved.users ??= {}) as Obj)[id] = userWire(u);
      return true;
    }
    const m = SNOWFLAKE.test(id) ? await this.store.guildMembers.get(view.guild.id, id) : undefined;
    if (!m) return false;
    ((resolved.users ??= {}) as Obj)[id] = userWire(m.user);
    const { user: _u, ...member } = memberWire(m) as unknown as Obj;
    const subj = new GuildView(view.guild, view.roles, m);
    ((resolved.members ??= {}) as Obj)[id] = { ...member, permissions: subj.permissions.toString() };
    return true;
  }

  /** A channel of this guild the member can view, as the partial resolved channel (with the member's permissions). */
  async resolveChannel(view: GuildView, id: string, resolved: Obj): Promise<boolean> {
    const c = SNOWFLAKE.test(id) ? await this.store.guilds.channel(id) : undefined;
    if (!c || c.guild_id !== view.guild.id || !has(view.channelPermissions(c), Permission.ViewChannel)) return false;
    ((resolved.channels ??= {}) as Obj)[c.id] = { id: c.id, name: c.name, type: c.type, permissions: view.channelPermissions(c).toString(), ...(c.parent_id ? { parent_id: c.parent_id } : {}) };
    return true;
  }

  resolveRole(view: GuildView, id: string, resolved: Obj): boolean {
    const r = view.roles.find((x) => x.id === id);
    if (!r) return false;
    ((resolved.roles ??= {}) as Obj)[id] = roleWire(r);
    return true;
  }

  /** A component on the message by `custom_id` (enabled, interactive), with select values checked. */
}
