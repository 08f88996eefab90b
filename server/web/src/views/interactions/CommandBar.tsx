import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { onDispatch } from '../../api/GatewayClient.ts';
import { ApiRequestError } from '../../api/RestClient.ts';
import { type CommandOption, type IndexedCommand, interactionsApi, newNonce } from './interactionsApi.ts';
import { current, dismiss, onStatus, track } from './interactionStatus.ts';
import './interactions.css';

const OptionType = { SubCommand: 1, Group: 2, String: 3, Integer: 4, Boolean: 5, User: 6, Channel: 7, Role: 8, Mentionable: 9, Number: 10 } as const;

/** Sets the composer's text as if typed, so its own state follows. */
function setComposer(value: string): void {
  const el = document.getElementById('composer-input') as HTMLTextAreaElement | null;
  if (!el) return;
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

/** Option values from the form's strings, typed as the command wants them. */
function typed(o: CommandOption, raw: string): string | number | boolean | undefined {
  if (raw === '') return undefined;
  if (o.type === OptionType.Integer) return Number.parseInt(raw, 10);
  if (o.type === OptionType.Number) return Number(raw);
  if (o.type === OptionType.Boolean) return raw === 'true';
  if (o.choices && o.choices.some((c) => typeof c.value === 'number')) return Number(raw);
  return raw;
}

/** The leaf paths of a command: [] when it has no sub-commands, else each `group sub` / `sub`. */
export function subcommandPaths(cmd: IndexedCommand): string[][] {
  const opts = cmd.options ?? [];
  if (!opts.some((o) => o.type === OptionType.SubCommand || o.type === OptionType.Group)) return [];
  return opts.flatMap((o) => (o.type === OptionType.Group ? (o.options ?? []).map((s) => [o.name, s.name]) : o.type === OptionType.SubCommand ? [[o.name]] : []));
}

/** The options the form shows for a path, and how to nest the filled values into `data.options`. */
function leaf(cmd: IndexedCommand, path: string[]): { fields: CommandOption[]; wrap: (opts: unknown[]) => unknown[] } {
  if (path.length === 0) return { fields: cmd.options ?? [], wrap: (o) => o };
  const first = (cmd.options ?? []).find((o) => o.name === path[0])!;
  if (path.length === 1) return { fields: first.options ?? [], wrap: (o) => [{ type: OptionType.SubCommand, name: first.name, options: o }] };
  const sub = (first.options ?? []).find((o) => o.name === path[1])!;
  return { fields: sub.options ?? [], wrap: (o) => [{ type: OptionType.Group, name: first.name, options: [{ type: OptionType.SubCommand, name: sub.name, options: o }] }] };
}

/**
 * The command picker: typing `/` in the message box lists the commands of the apps in this guild
 * (and the user's own apps), filtered as one types; picking one opens its options (a field per
 * option, a list for choices), Run invokes it (POST /interactions). Below, the latest
 * interaction's state: sending, "<app> is thinking…", or "interaction failed".
 */
export function CommandBar({ channelId }: { channelId: string; guildId?: string | null }) {
  const [commands, setCommands] = useState<IndexedCommand[] | null>(null);
  const [query, setQuery] = useState<string | null>(null);
  const [picked, setPicked] = useState<IndexedCommand | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const [path, setPath] = useState<string[]>([]);
  const [suggestions, setSuggestions] = useState<Record<string, { name: string; value: string | number }[]>>({});
  const pendingAc = useRef(new Map<string, string>());
  const acTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [, redraw] = useState(0);
  const stateRef = useRef({ query, picked, active, list: [] as IndexedCommand[] });

  useEffect(() => onStatus(() => redraw((n) => n + 1)), []);
  // Autocomplete answers come back over the Gateway, matched by nonce to the option asked about.
  useEffect(() => onDispatch((event, data) => {
    if (event !== 'APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE') return;
    const d = data as { nonce?: string; choices?: { name: string; value: string | number }[] };
    const option = d.nonce ? pendingAc.current.get(d.nonce) : undefined;
    if (option) setSuggestions((old) => ({ ...old, [option]: d.choices ?? [] }));
  }), []);
  useEffect(() => {
    setCommands(null);
    setPicked(null);
    interactionsApi.commands(channelId).then(setCommands, () => setCommands([]));
  }, [channelId]);

  const list = useMemo(() => {
    if (query === null || !commands) return [];
    const q = query.toLowerCase();
    return commands.filter((c) => c.type === 1 && c.name.startsWith(q)).slice(0, 10);
  }, [commands, query]);
  stateRef.current = { query, picked, active, list };

  const run = async (cmd: IndexedCommand, vals: Record<string, string>) => {
    setError(null);
    const paths = subcommandPaths(cmd);
    const at = paths.length > 0 ? (path.length > 0 ? path : paths[0]!) : [];
    const { fields, wrap } = leaf(cmd, at);
    const options: { type: number; name: string; value: unknown }[] = [];
    for (const o of fields) {
      const v = typed(o, vals[o.name] ?? '');
      if (v === undefined) {
        if (o.required) return setError(`${o.name} is required.`);
        continue;
      }
      options.push({ type: o.type, name: o.name, value: v });
    }
    const nonce = newNonce();
    track(nonce, `/${cmd.name}`);
    try {
      const nested = wrap(options);
      await interactionsApi.invoke({ type: 2, application_id: cmd.application_id, channel_id: channelId, nonce, data: { id: cmd.id, name: cmd.name, type: 1, ...(nested.length ? { options: nested } : {}) } });
      setPicked(null);
      setValues({});
      setPath([]);
      setSuggestions({});
    } catch (e) {
      dismiss(nonce);
      setError(e instanceof ApiRequestError ? e.message : 'Could not run the command.');
    }
  };

  const choose = (cmd: IndexedCommand) => {
    setQuery(null);
    setComposer('');
    if ((cmd.options ?? []).length === 0) return void run(cmd, {});
    setPicked(cmd);
    setValues({});
    setPath(subcommandPaths(cmd)[0] ?? []);
    setSuggestions({});
    setTimeout(() => (document.querySelector('.cmd-options input, .cmd-options select') as HTMLElement | null)?.focus(), 0);
  };

  // Watch the composer: a leading `/` opens the picker; arrows and Enter drive it before the composer sees them.
  useEffect(() => {
    const onInput = (e: Event) => {
      const el = e.target as HTMLTextAreaElement;
      if (el.id !== 'composer-input') return;
      const m = /^\/(\S*)$/.exec(el.value);
      setQuery(m ? m[1]! : null);
      setActive(0);
    };
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      const s = stateRef.current;
      if (el.id !== 'composer-input' || s.query === null || s.list.length === 0) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        e.stopPropagation();
        setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : s.list.length - 1)) % s.list.length);
      } else if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        e.stopPropagation();
        choose(s.list[Math.min(s.active, s.list.length - 1)]!);
      } else if (e.key === 'Escape') setQuery(null);
    };
    document.addEventListener('input', onInput, true);
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('input', onInput, true);
      document.removeEventListener('keydown', onKey, true);
    };
  }, [channelId]);

  /** Asks the app for suggestions for `option` (AUTOCOMPLETE, the focused option), at most every 250 ms. */
  const askSuggestions = (cmd: IndexedCommand, option: CommandOption, vals: Record<string, string>) => {
    clearTimeout(acTimer.current);
    acTimer.current = setTimeout(() => {
      const { fields, wrap } = leaf(cmd, path);
      const options = fields.filter((o) => vals[o.name] !== undefined && vals[o.name] !== '').map((o) => ({ type: o.type, name: o.name, value: o.name === option.name ? vals[o.name] : typed(o, vals[o.name]!), ...(o.name === option.name ? { focused: true } : {}) }));
      if (!options.some((o) => o.name === option.name)) options.push({ type: option.type, name: option.name, value: '', focused: true });
      const nonce = newNonce();
      pendingAc.current.set(nonce, option.name);
      void interactionsApi.invoke({ type: 4, application_id: cmd.application_id, channel_id: channelId, nonce, data: { id: cmd.id, name: cmd.name, type: 1, options: wrap(options) } }).catch(() => {});
    }, 250);
  };

  const status = current();
  const paths = picked ? subcommandPaths(picked) : [];
  const fields = picked ? leaf(picked, paths.length > 0 ? (path.length > 0 ? path : paths[0]!) : []).fields : [];
  return (
    <div class="cmd-bar" id="command-bar">
      {query !== null && (
        <ul class="cmd-picker" id="command-picker" role="listbox" aria-label="Commands">
          {commands === null && <li class="muted small">Loading commands…</li>}
          {commands !== null && list.length === 0 && <li class="muted small">No command matches /{query}</li>}
          {list.map((c, i) => (
            <li key={c.id} role="option" aria-selected={i === active} class={`cmd-item${i === active ? ' cmd-active' : ''}`} data-command={c.name} onMouseDown={(e) => { e.preventDefault(); choose(c); }}>
              <b>/{c.name}</b> <span class="muted small">{c.description}</span> <span class="cmd-app small">{c.application.name}</span>
            </li>
          ))}
        </ul>
      )}
      {picked && (
        <form class="cmd-options" id="command-options" onSubmit={(e) => { e.preventDefault(); void run(picked, values); }}>
          <div class="cmd-options-head"><b>/{picked.name}</b> <span class="muted small">{picked.application.name}</span></div>
          {paths.length > 0 && (
            <label class="cmd-option">
              <span>Sub-command</span>
              <select class="ui-input" name="subcommand" value={path.join(' ')} onChange={(e) => { setPath(e.currentTarget.value.split(' ')); setValues({}); setSuggestions({}); }}>
                {paths.map((p) => <option key={p.join(' ')} value={p.join(' ')}>{p.join(' ')}</option>)}
              </select>
            </label>
          )}
          {fields.filter((o) => o.type !== OptionType.SubCommand && o.type !== OptionType.Group).map((o) => (
            <label key={o.name} class="cmd-option">
              <span>{o.name}{o.required ? ' *' : ''} <span class="muted small">{o.description}</span></span>
              {o.choices && o.choices.length > 0 ? (
                <select class="ui-input" name={o.name} value={values[o.name] ?? ''} onChange={(e) => setValues({ ...values, [o.name]: e.currentTarget.value })}>
                  <option value="">—</option>
                  {o.choices.map((c) => <option key={String(c.value)} value={String(c.value)}>{c.name}</option>)}
                </select>
              ) : o.type === OptionType.Boolean ? (
                <select class="ui-input" name={o.name} value={values[o.name] ?? ''} onChange={(e) => setValues({ ...values, [o.name]: e.currentTarget.value })}>
                  <option value="">—</option><option value="true">True</option><option value="false">False</option>
                </select>
              ) : (
                <>
                  <input class="ui-input" name={o.name} list={o.autocomplete ? `ac-${o.name}` : undefined} autoComplete="off" inputMode={o.type === OptionType.Integer || o.type === OptionType.Number ? 'numeric' : 'text'} value={values[o.name] ?? ''} placeholder={o.type === OptionType.User ? 'User ID' : o.type === OptionType.Channel ? 'Channel ID' : o.type === OptionType.Role ? 'Role ID' : ''} onInput={(e) => {
                    const next = { ...values, [o.name]: e.currentTarget.value };
                    setValues(next);
                    if (o.autocomplete) askSuggestions(picked, o, next);
                  }} />
                  {o.autocomplete && (
                    <datalist id={`ac-${o.name}`}>
                      {(suggestions[o.name] ?? []).map((c) => <option key={String(c.value)} value={String(c.value)}>{c.name}</option>)}
                    </datalist>
                  )}
                </>
              )}
            </label>
          ))}
          <div class="cmd-options-actions">
            <button type="submit" class="ui-button ui-button-primary" id="command-run">Run</button>
            <button type="button" class="ui-button ui-button-secondary" onClick={() => setPicked(null)}>Cancel</button>
          </div>
        </form>
      )}
      {error && <div class="small error-text" id="command-error">{error}</div>}
      {status && (
        <div class={`cmd-status cmd-${status.phase}`} id="interaction-status" role="status">
          {status.phase === 'sending' && <span>Sending {status.label}…</span>}
          {status.phase === 'thinking' && <span><span class="cmd-dots" aria-hidden="true" /> The application is thinking…</span>}
          {status.phase === 'done' && <span>{status.label} answered.</span>}
          {status.phase === 'failed' && <span>Interaction failed: the application did not respond.</span>}
          {status.phase !== 'sending' && <button type="button" class="ui-notice-close" aria-label="Dismiss" onClick={() => dismiss(status.nonce)}>×</button>}
        </div>
      )}
    </div>
  );
}
