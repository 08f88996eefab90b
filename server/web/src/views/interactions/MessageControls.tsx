import { useState } from 'preact/hooks';
import { ApiRequestError } from '../../api/RestClient.ts';
import { interactionsApi, newNonce } from './interactionsApi.ts';
import { track } from './interactionStatus.ts';
import { AutoSelect, isAutoSelect } from './AutoSelect.tsx';

interface Control { channel_types?: number[]; default_values?: { id: string; type: string }[]; type: number; style?: number; label?: string; custom_id?: string; disabled?: boolean; placeholder?: string; min_values?: number; max_values?: number; options?: { label: string; value: string; description?: string }[] }

/** The message and channel a control sits in: the message item's `msg-ID` and the route's channel. */
function whereIs(el: Element): { messageId: string; channelId: string } | null {
  const item = el.closest('[id^="msg-"]');
  const channelId = /\/channels\/(\d+)/.exec(location.pathname)?.[1] ?? /\/dms\/(\d+)/.exec(location.pathname)?.[1];
  return item && channelId ? { messageId: item.id.slice(4), channelId } : null;
}

async function click(el: Element, data: Record<string, unknown>, label: string): Promise<string | null> {
  const at = whereIs(el);
  if (!at) return 'This control is not in a channel.';
  const nonce = newNonce();
  track(nonce, label);
  try {
    await interactionsApi.invoke({ type: 3, channel_id: at.channelId, message_id: at.messageId, nonce, data });
    return null;
  } catch (e) {
    return e instanceof ApiRequestError ? e.message : 'The interaction could not be sent.';
  }
}

const STYLE: Record<number, string> = { 1: 'ui-button-primary', 2: 'ui-button-secondary', 3: 'ui-button-success', 4: 'ui-button-danger' };

/** An interactive button (styles 1-4): a click is a MESSAGE_COMPONENT interaction by its custom_id. */
export function ComponentButton({ c }: { c: Control }) {
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  return (
    <span class="cmp-wrap">
      <button type="button" class={`ui-button ${STYLE[c.style ?? 2] ?? 'ui-button-secondary'}`} data-custom-id={c.custom_id} disabled={c.disabled || busy} onClick={async (e) => {
        setBusy(true);
        setErr(await click(e.currentTarget, { custom_id: c.custom_id, component_type: 2 }, c.label ?? 'Button'));
        setBusy(false);
      }}>{c.label ?? 'Button'}</button>
      {err && <span class="small error-text">{err}</span>}
    </span>
  );
}

/** A string select (and user/role/mentionable/channel selects): choosing sends the values (within min/max) as a MESSAGE_COMPONENT interaction. */
export function ComponentSelect({ c }: { c: Control }) {
  const [err, setErr] = useState<string | null>(null);
  const multi = (c.max_values ?? 1) > 1;
  if (isAutoSelect(c.type)) {
    // User, role, mentionable and channel selects: choices from the guild or DM (AutoSelect.tsx).
    return (
      <span class="cmp-wrap">
        <AutoSelect c={c} onValues={async (values, el) => {
          if (values.length < (c.min_values ?? 1)) return;
          setErr(await click(el, { custom_id: c.custom_id, component_type: c.type, values }, c.placeholder ?? 'Select'));
        }} />
        {err && <span class="small error-text">{err}</span>}
      </span>
    );
  }
  if (c.type !== 3) return <span class="msg-select muted small">{c.placeholder ?? 'Select'}</span>;
  return (
    <span class="cmp-wrap">
      <select class="ui-input cmp-select" data-custom-id={c.custom_id} multiple={multi} disabled={c.disabled} aria-label={c.placeholder ?? 'Select'} onChange={async (e) => {
        const values = [...e.currentTarget.selectedOptions].map((o) => o.value).filter((v) => v !== '');
        if (values.length < (c.min_values ?? 1)) return;
        setErr(await click(e.currentTarget, { custom_id: c.custom_id, component_type: 3, values }, c.placeholder ?? 'Select'));
      }}>
        {!multi && <option value="">{c.placeholder ?? 'Choose…'}</option>}
        {(c.options ?? []).map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
      {err && <span class="small error-text">{err}</span>}
    </span>
  );
}
