/**
 * The overlay's toggle key (happy-dom): the default Shift+Tab and a configured chord collapse
 * and expand every panel while focus is in the game, never while typing in a field or moving
 * through the panels, and a destroyed overlay stops listening. Also the chord parser's errors.
 */
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { LobbyOverlay } from '../src/LobbyOverlay.ts';
import { parseKeyChord } from '../src/toggleKey.ts';
import type { PanelClient } from '../src/types.ts';

/** Enough of a client for panels with no lobby state: every read is empty. */
const client = {
  on: () => () => {},
  getLobbyHandle: () => undefined,
  getMessageHandle: () => undefined,
  getCurrentUserV2: () => undefined,
  sendLobbyMessage: () => Promise.resolve('1'),
} as unknown as PanelClient;

let win: Window;
afterEach(() => win?.close());

function setUp(options?: ConstructorParameters<typeof LobbyOverlay>[2]) {
  win = new Window();
  const doc = win.document as unknown as Document;
  const parent = doc.createElement('div');
  doc.body.append(parent);
  const overlay = new LobbyOverlay(client, parent, options);
  overlay.showLobby('1');
  const press = (init: KeyboardEventInit) => win.dispatchEvent(new win.KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init } as never) as never);
  const expanded = () => [...doc.querySelectorAll('.sl-panel-toggle')].map((t) => t.getAttribute('aria-expanded'));
  return { doc, overlay, press, expanded };
}

describe('overlay toggle key', () => {
  it('Shift+Tab collapses and expands every panel when focus is in the game', () => {
    const { overlay, press, expanded } = setUp();
    expect(expanded()).toEqual(['true', 'true']);
    press({ key: 'Tab', code: 'Tab', shiftKey: true });
    expect(expanded()).toEqual(['false', 'false']);
    expect(overlay.collapsed).toBe(true);
    press({ key: 'Tab', code: 'Tab' }); // plain Tab is navigation
    expect(expanded()).toEqual(['false', 'false']);
    press({ key: 'Tab', code: 'Tab', shiftKey: true });
    expect(expanded()).toEqual(['true', 'true']);
  });

  it('leaves Shift+Tab alone inside the panels and in text fields', () => {
    const { doc, press, expanded } = setUp();
    (doc.querySelector('.sl-chat-input') as HTMLInputElement).focus();
    press({ key: 'Tab', code: 'Tab', shiftKey: true });
    expect(expanded()).toEqual(['true', 'true']);
    const field = doc.createElement('input');
    doc.body.append(field);
    field.focus();
    press({ key: 'Tab', code: 'Tab', shiftKey: true });
    expect(expanded()).toEqual(['true', 'true']);
  });

  it('takes another chord, or none, and stops listening when destroyed', () => {
    const custom = setUp({ toggleKey: 'Alt+KeyS' });
    custom.press({ key: 'Tab', code: 'Tab', shiftKey: true });
    expect(custom.expanded()).toEqual(['true', 'true']);
    custom.press({ key: 's', code: 'KeyS', altKey: true });
    expect(custom.expanded()).toEqual(['false', 'false']);
    custom.overlay.destroy();
    expect(custom.doc.querySelector('.sl-overlay')).toBeNull();

    const none = setUp({ toggleKey: false });
    none.press({ key: 'Tab', code: 'Tab', shiftKey: true });
    expect(none.expanded()).toEqual(['true', 'true']);
  });

  it('rejects chords it cannot read', () => {
    expect(parseKeyChord('Shift+Tab')).toEqual({ key: 'Tab', shift: true, ctrl: false, alt: false, meta: false });
    expect(() => parseKeyChord('Shift+')).toThrow(/Not a key chord/);
    expect(() => parseKeyChord('Hyper+K')).toThrow(/Unknown modifier/);
    expect(() => new LobbyOverlay(client, new Window().document.createElement('div') as unknown as HTMLElement, { toggleKey: 'Ctrl' })).toThrow(/Not a key chord/);
  });
});
