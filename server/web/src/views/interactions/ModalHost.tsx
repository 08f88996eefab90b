import { useEffect, useState } from 'preact/hooks';
import { onDispatch } from '../../api/GatewayClient.ts';
import { ApiRequestError } from '../../api/RestClient.ts';
import { interactionsApi, newNonce } from './interactionsApi.ts';
import { track } from './interactionStatus.ts';
import { AutoSelect } from './AutoSelect.tsx';
import './interactions.css';

type Obj = Record<string, any>;
interface ModalEvent { id: string; channel_id: string; custom_id: string; title: string; components: Obj[]; application?: { name?: string } }

/**
 * Modals as dialogs, rendered once by the app shell: INTERACTION_MODAL_CREATE (an app answered
 * with MODAL) opens one with its Labels (Text Input, selects, Radio Group, Checkbox Group,
 * Checkbox, File Upload), Text Displays and deprecated rows; Submit sends the values
 * (MODAL_SUBMIT); the server checks them against the modal and its answer is shown.
 */
export function InteractionHost() {
  const [modal, setModal] = useState<ModalEvent | null>(null);
  useEffect(() => onDispatch((event, data) => {
    if (event === 'INTERACTION_MODAL_CREATE') setModal(data as ModalEvent);
  }), []);
  return modal ? <ModalDialog key={modal.id} modal={modal} onClose={() => setModal(null)} /> : null;
}

function inputsOf(c: Obj): { label: string; description?: string; input: Obj } | { text: string } | null {
  if (c.type === 18) return { label: c.label, description: c.description, input: c.component };
  if (c.type === 1 && c.components?.[0]) return { label: c.components[0].label, input: c.components[0] };
  if (c.type === 10) return { text: c.content };
  return null;
}

function ModalDialog({ modal, onClose }: { modal: ModalEvent; onClose: () => void }) {
  const [values, setValues] = useState<Record<string, unknown>>(() => {
    const v: Record<string, unknown> = {};
    for (const c of modal.components) {
      const f = inputsOf(c);
      if (f && 'input' in f && f.input.type === 4 && f.input.value) v[f.input.custom_id] = f.input.value;
    }
    return v;
  });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** File Upload fields' chosen files, by custom_id. */
  const [files, setFiles] = useState<Record<string, File[]>>({});
  const set = (id: string, v: unknown) => setValues({ ...values, [id]: v });

  const submit = async () => {
    setBusy(true);
    setError(null);
    const nonce = newNonce();
    track(nonce, modal.title);
    try {
      // Files go as files[n]; each File Upload field names its files by n.
      const all: File[] = [];
      const refs: Record<string, string[]> = {};
      for (const [id, list] of Object.entries(files)) refs[id] = list.map((f) => String(all.push(f) - 1));
      const body = { type: 5, channel_id: modal.channel_id, nonce, data: { id: modal.id, custom_id: modal.custom_id, values: { ...values, ...refs } } };
      await (all.length > 0 ? interactionsApi.invokeWithFiles(body, all) : interactionsApi.invoke(body));
      onClose();
    } catch (e) {
      setError(e instanceof ApiRequestError ? e.message : 'Could not submit the form.');
    }
    setBusy(false);
  };

  const field = (input: Obj) => {
    const id = input.custom_id as string;
    const opts = (input.options ?? []) as { label: string; value: string }[];
    switch (input.type) {
      case 4:
        return input.style === 2
          ? <textarea class="ui-input" name={id} rows={3} maxLength={input.max_length ?? 4000} placeholder={input.placeholder ?? ''} value={(values[id] as string) ?? ''} onInput={(e) => set(id, e.currentTarget.value)} />
          : <input class="ui-input" name={id} maxLength={input.max_length ?? 4000} placeholder={input.placeholder ?? ''} value={(values[id] as string) ?? ''} onInput={(e) => set(id, e.currentTarget.value)} />;
      case 3:
        return (
          <select class="ui-input" name={id} multiple={(input.max_values ?? 1) > 1} onChange={(e) => set(id, [...e.currentTarget.selectedOptions].map((o) => o.value).filter((x) => x !== ''))}>
            {(input.max_values ?? 1) <= 1 && <option value="">{input.placeholder ?? 'Choose…'}</option>}
            {opts.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
          </select>
        );
      case 21:
        return <div class="modal-choices">{opts.map((o) => <label key={o.value}><input type="radio" name={id} value={o.value} onChange={() => set(id, [o.value])} /> {o.label}</label>)}</div>;
      case 22:
        return <div class="modal-choices">{opts.map((o) => <label key={o.value}><input type="checkbox" name={id} value={o.value} onChange={(e) => {
          const cur = new Set((values[id] as string[]) ?? []);
          if (e.currentTarget.checked) cur.add(o.value); else cur.delete(o.value);
          set(id, [...cur]);
        }} /> {o.label}</label>)}</div>;
      case 23:
        return <input type="checkbox" name={id} onChange={(e) => set(id, e.currentTarget.checked)} />;
      case 19:
        return <input type="file" name={id} multiple={(input.max_values ?? 1) > 1} accept={Array.isArray(input.file_types) ? input.file_types.join(',') : undefined} onChange={(e) => setFiles({ ...files, [id]: [...(e.currentTarget.files ?? [])].slice(0, input.max_values ?? 1) })} />;
      case 5: case 6: case 7: case 8:
        return <AutoSelect c={input} name={id} onValues={(v) => set(id, v)} />;
      default:
        return <span class="muted small">This field cannot be filled here yet.</span>;
    }
  };

  return (
    <div class="modal-backdrop" role="dialog" aria-label={modal.title} onClick={(e) => e.target === e.currentTarget && onClose()}>
      <form class="modal-dialog ui-panel" id="interaction-modal" aria-modal="true" aria-label={modal.title} onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <header class="ui-panel-header"><h2>{modal.title}</h2>{modal.application?.name && <span class="muted small">{modal.application.name}</span>}</header>
        <div class="ui-panel-body modal-body">
          {modal.components.map((c, i) => {
            const f = inputsOf(c);
            if (!f) return null;
            if ('text' in f) return <p key={i} class="modal-text">{f.text}</p>;
            return (
              <label key={i} class="ui-field modal-field">
                <span class="ui-field-label">{f.label}{f.input.required !== false && f.input.type !== 23 ? ' *' : ''}</span>
                {f.description && <span class="muted small">{f.description}</span>}
                {field(f.input)}
              </label>
            );
          })}
          {error && <div class="small error-text" id="modal-error">{error}</div>}
        </div>
        <footer class="modal-actions">
          <button type="button" class="ui-button ui-button-secondary" onClick={onClose}>Cancel</button>
          <button type="submit" class="ui-button ui-button-primary" id="modal-submit" disabled={busy}>Submit</button>
        </footer>
      </form>
    </div>
  );
}
