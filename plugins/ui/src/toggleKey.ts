/** A key chord such as 'Shift+Tab' or 'Alt+KeyS': modifiers, then a `KeyboardEvent.key` or `.code`. */
export interface KeyChord {
  key: string;
  shift: boolean;
  ctrl: boolean;
  alt: boolean;
  meta: boolean;
}

const MODIFIERS = new Set(['shift', 'ctrl', 'control', 'alt', 'meta']);

export function parseKeyChord(text: string): KeyChord {
  const parts = text.split('+').map((p) => p.trim()).filter(Boolean);
  const key = parts.pop();
  if (!key || MODIFIERS.has(key.toLowerCase())) throw new Error(`Not a key chord: ${JSON.stringify(text)} (want e.g. 'Shift+Tab')`);
  const mods = new Set(parts.map((p) => p.toLowerCase()));
  for (const mod of mods) if (!MODIFIERS.has(mod)) throw new Error(`Unknown modifier ${JSON.stringify(mod)} in ${JSON.stringify(text)}`);
  return { key, shift: mods.has('shift'), ctrl: mods.has('ctrl') || mods.has('control'), alt: mods.has('alt'), meta: mods.has('meta') };
}

export function matchesChord(event: KeyboardEvent, chord: KeyChord): boolean {
  const key = chord.key.toLowerCase();
  return (
    (event.key.toLowerCase() === key || event.code.toLowerCase() === key) &&
    event.shiftKey === chord.shift &&
    event.ctrlKey === chord.ctrl &&
    event.altKey === chord.alt &&
    event.metaKey === chord.meta
  );
}
