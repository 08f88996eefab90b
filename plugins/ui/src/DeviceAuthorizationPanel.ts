import type { DeviceScreen } from '@social-layer/client';

/** What the client hands a device screen (DeviceScreen.open's argument). */
type DeviceScreenInfo = Parameters<DeviceScreen['open']>[0];

/** Options of `DeviceAuthorizationPanel`. */
export interface DeviceAuthorizationPanelOptions {
  /** Heading of the panel (default "Link your account"). */
  title?: string;
}

/**
 * The device-authorization screen as an overlay panel: the user code in large type, the
 * activation link (the platform's `/activate` page, prefilled with the code), a countdown when
 * the code's lifetime is known, and a Close button. It is a `DeviceScreen`, so a game hands it
 * to the client once, `client.setAuthorizeDeviceScreen(panel)`, and then both
 * `getTokenFromDevice` and `openAuthorizeDeviceScreen` show it; Close tells the client, whose
 * `setAuthorizeDeviceScreenClosedCallback` fires.
 *
 * Self-contained: its own `sl-device-auth` stylesheet (added while a panel lives), no engine
 * import, and it sits in whatever element it is given (the game's overlay or the page body).
 */
export class DeviceAuthorizationPanel implements DeviceScreen {
  /** The panel element (class `sl-device-auth`), hidden while closed. */
  readonly element: HTMLElement;
  readonly #doc: Document;
  readonly #title: HTMLElement;
  readonly #code: HTMLElement;
  readonly #link: HTMLAnchorElement;
  readonly #expiry: HTMLElement;
  #dismissed: (() => void) | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #destroyed = false;

  constructor(parent: HTMLElement, options: DeviceAuthorizationPanelOptions = {}) {
    const doc = parent.ownerDocument;
    this.#doc = doc;
    retain(doc);
    this.element = make(doc, 'div', 'sl-device-auth');
    this.element.setAttribute('role', 'dialog');
    this.element.setAttribute('aria-modal', 'false');
    this.element.hidden = true;
    this.#title = make(doc, 'h2', 'sl-device-auth-title');
    this.#title.textContent = options.title ?? 'Link your account';
    const intro = make(doc, 'p', 'sl-device-auth-text');
    intro.append('Open ');
    this.#link = make(doc, 'a', 'sl-device-auth-link');
    this.#link.target = '_blank';
    this.#link.rel = 'noopener noreferrer';
    intro.append(this.#link, ' on your phone or computer and enter this code:');
    this.#code = make(doc, 'output', 'sl-device-auth-code');
    this.#code.setAttribute('aria-live', 'polite');
    this.#expiry = make(doc, 'p', 'sl-device-auth-expiry');
    const close = make(doc, 'button', 'sl-device-auth-close');
    close.type = 'button';
    close.textContent = 'Close';
    close.addEventListener('click', () => this.#dismiss());
    // Keys typed here must not reach the game's keyboard handlers.
    this.element.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Escape') this.#dismiss();
    });
    this.element.append(this.#title, intro, this.#code, this.#expiry, close);
    parent.append(this.element);
  }

  /** Whether the panel is showing a code. */
  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** The code shown (empty while closed). */
  get userCode(): string {
    return this.isOpen ? (this.#code.textContent ?? '') : '';
  }

  open(info: DeviceScreenInfo): void {
    if (this.#destroyed) throw new Error('DeviceAuthorizationPanel: open after destroy');
    this.#stopTimer();
    this.#dismissed = info.dismissed;
    this.#code.textContent = info.userCode;
    this.#link.href = safeHttpUrl(info.verificationUriComplete) ?? safeHttpUrl(info.verificationUri) ?? '#';
    this.#link.textContent = displayUrl(info.verificationUri);
    this.#expiry.textContent = '';
    if (info.expiresIn > 0) {
      const until = Date.now() + info.expiresIn * 1000;
      const tick = () => {
        const left = Math.max(0, Math.round((until - Date.now()) / 1000));
        this.#expiry.textContent = left > 0 ? `The code expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}` : 'The code has expired';
        if (left === 0) this.#stopTimer();
      };
      tick();
      this.#timer = setInterval(tick, 1000);
    }
    this.element.hidden = false;
  }

  close(): void {
    this.#stopTimer();
    this.#dismissed = undefined;
    this.element.hidden = true;
    this.#code.textContent = '';
  }

  /** Removes the panel and, with the last panel of the document, its stylesheet. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.close();
    this.element.remove();
    release(this.#doc);
  }

  #dismiss(): void {
    const dismissed = this.#dismissed;
    this.close();
    dismissed?.();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function make<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, className: string): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  node.className = className;
  return node;
}

/** Only http(s) links are ever put in the href (the URL comes from the server's response). */
function safeHttpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

function displayUrl(value: string): string {
  return value.replace(/^https?:\/\//, '');
}

const STYLE_ID = 'sl-device-auth-styles';
const refCounts = new WeakMap<Document, number>();

function retain(doc: Document): void {
  const count = refCounts.get(doc) ?? 0;
  refCounts.set(doc, count + 1);
  if (count > 0 || doc.getElementById(STYLE_ID)) return;
  const style = doc.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  doc.head.append(style);
}

function release(doc: Document): void {
  const count = (refCounts.get(doc) ?? 1) - 1;
  refCounts.set(doc, count);
  if (count <= 0) doc.getElementById(STYLE_ID)?.remove();
}

const CSS = `
.sl-device-auth {
  position: absolute; top: 50%; left: 50%; transform: translate(-50%, -50%); z-index: 20;
  box-sizing: border-box; width: min(380px, calc(100% - 24px)); padding: 18px 20px; pointer-events: auto;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #eef0f7;
  background: rgba(18, 20, 31, 0.94); border: 1px solid rgba(255, 255, 255, 0.1); border-radius: 12px;
  box-shadow: 0 10px 32px rgba(0, 0, 0, 0.45); text-align: center;
}
.sl-device-auth[hidden] { display: none; }
.sl-device-auth-title { margin: 0 0 8px; font-size: 18px; }
.sl-device-auth-text { margin: 0 0 12px; color: #c4c9da; }
.sl-device-auth-link { color: #7c9cff; font-weight: 600; word-break: break-all; }
.sl-device-auth-code {
  display: block; margin: 4px 0 10px; font: 700 32px/1.2 ui-monospace, "SFMono-Regular", Menlo, monospace;
  letter-spacing: 0.12em; color: #ffffff; user-select: all;
}
.sl-device-auth-expiry { margin: 0 0 12px; min-height: 1.4em; font-size: 12px; color: #9aa1b8; }
.sl-device-auth-close {
  padding: 7px 18px; border: 0; border-radius: 7px; background: #7c9cff; color: #0d1020; font: inherit; font-weight: 600; cursor: pointer;
}
`;
