import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';

/**
 * The app's component library: small, unstyled-by-prop pieces whose look lives in styles.css
 * (class names `ui-*`), so views compose them and stay free of layout details. Later features
 * build their screens from the same pieces.
 */

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' | 'ghost'; type?: 'button' | 'submit'; disabled?: boolean };

export function Button({ variant = 'primary', type = 'button', class: cls, ...rest }: ButtonProps) {
  return <button type={type} class={`ui-button ui-button-${variant}${cls ? ` ${String(cls)}` : ''}`} {...rest} />;
}

export function TextField(props: { id: string; label: string; value: string; onInput: (v: string) => void; placeholder?: string; maxLength?: number; minLength?: number; required?: boolean; readOnly?: boolean; inputMode?: 'numeric' | 'text' }) {
  return (
    <label class="ui-field" for={props.id}>
      <span class="ui-field-label">{props.label}</span>
      <input
        id={props.id}
        class="ui-input"
        value={props.value}
        placeholder={props.placeholder}
        maxLength={props.maxLength}
        minLength={props.minLength}
        required={props.required}
        readOnly={props.readOnly}
        inputMode={props.inputMode}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </label>
  );
}

/** A round picture for a guild or a person: the initials on a colour derived from the ID. */
export function Avatar({ id, name, size = 'md', active }: { id: string; name: string; size?: 'sm' | 'md'; active?: boolean }) {
  const hue = Number(BigInt(id || '0') % 360n);
  const initials = name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0]!.toUpperCase()).join('') || '?';
  return (
    <span class={`ui-avatar ui-avatar-${size}${active ? ' ui-avatar-active' : ''}`} style={{ background: `hsl(${hue} 45% 38%)` }} aria-hidden="true">
      {initials}
    </span>
  );
}

export function Panel({ title, children, actions, id }: { title: string; children: ComponentChildren; actions?: ComponentChildren; id?: string }) {
  return (
    <section class="ui-panel" id={id} aria-label={title}>
      <header class="ui-panel-header">
        <h2>{title}</h2>
        {actions}
      </header>
      <div class="ui-panel-body">{children}</div>
    </section>
  );
}

export function Notice({ kind = 'info', children, onClose }: { kind?: 'info' | 'error'; children: ComponentChildren; onClose?: () => void }) {
  return (
    <div class={`ui-notice ui-notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <span>{children}</span>
      {onClose && (
        <button type="button" class="ui-notice-close" aria-label="Dismiss" onClick={onClose}>
          ×
        </button>
      )}
    </div>
  );
}

export function Tabs<T extends string>({ value, options, onChange, label }: { value: T; options: { value: T; label: string }[]; onChange: (v: T) => void; label: string }) {
  return (
    <nav class="ui-tabs" aria-label={label}>
      {options.map((o) => (
        <button type="button" key={o.value} class={`ui-tab${o.value === value ? ' ui-tab-active' : ''}`} aria-current={o.value === value ? 'page' : undefined} data-tab={o.value} onClick={() => onChange(o.value)}>
          {o.label}
        </button>
      ))}
    </nav>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="ui-empty">{children}</p>;
}

/** Channel kind icons as inline SVG: fonts differ between machines (an emoji may be a blank box). */
export function Icon({ name }: { name: 'text' | 'voice' }) {
  return name === 'voice' ? (
    <svg class="ui-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
      <path fill="currentColor" d="M2 8.5h4.5L13 3v18l-6.5-5.5H2z" />
      <path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M16.5 8.5a5 5 0 0 1 0 7M19.5 5.5a9.5 9.5 0 0 1 0 13" />
    </svg>
  ) : (
    <svg class="ui-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
      <path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M9 4 7 20M17 4l-2 16M4 9h17M3 15h17" />
    </svg>
  );
}
