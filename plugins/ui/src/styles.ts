/**
 * The panels' stylesheet. Injected once per document while any overlay lives (reference
 * counted), so importing the plugin has no side effects and a destroyed game leaves no trace.
 * Every selector is prefixed `sl-` so it cannot collide with the game page's own CSS; the
 * custom properties on `.sl-overlay` and `.sl-bar` are the theme a game may override (colors,
 * radius, gap, font, panel sizes).
 */
const CSS = `
.sl-overlay, .sl-bar {
  --sl-bg: rgba(18, 20, 31, 0.82);
  --sl-fg: #eef0f7;
  --sl-muted: #9aa1b8;
  --sl-accent: #7c9cff;
  --sl-online: #46d37e;
  --sl-offline: #6b7084;
  --sl-error: #ff7a7a;
  --sl-accent-fg: #0d1020;
  --sl-radius: 10px;
  --sl-gap: 12px;
  --sl-border: rgba(255, 255, 255, 0.08);
  --sl-font: 14px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --sl-bar-bg: #151927;
  --sl-toast-bg: #171a28;
  --sl-chat-width: 360px;
  --sl-chat-height: 300px;
  --sl-friends-width: 250px;
  --sl-members-width: 220px;
}
/* The overlay is a size container: the layout follows the canvas's box, not the window's. */
.sl-overlay {
  position: absolute; inset: 0; pointer-events: none; z-index: 10; overflow: hidden;
  container: sl-overlay / size; font: var(--sl-font); color: var(--sl-fg);
}
/* Corners are grid cells, so two corners can never cover each other; panels stack inside one. */
/* Clear of a phone's rounded corners and home indicator on pages that draw edge to edge (viewport-fit=cover). */
.sl-layout {
  position: absolute; inset: 0; box-sizing: border-box; display: grid; gap: var(--sl-gap);
  padding: var(--sl-gap) max(var(--sl-gap), env(safe-area-inset-right)) max(var(--sl-gap), env(safe-area-inset-bottom)) max(var(--sl-gap), env(safe-area-inset-left));
  grid-template-columns: minmax(0, max-content) minmax(0, 1fr) minmax(0, max-content);
  grid-template-rows: minmax(0, 1fr) minmax(0, 1fr);
  grid-template-areas: "tl . tr" "bl . br";
}
.sl-dock { display: flex; flex-direction: column; gap: var(--sl-gap); min-width: 0; min-height: 0; max-height: 100%; }
.sl-dock:empty { display: none; }
.sl-dock-top-left { grid-area: tl; align-self: start; align-items: flex-start; }
.sl-dock-top-right { grid-area: tr; align-self: start; align-items: flex-end; }
.sl-dock-bottom-left { grid-area: bl; align-self: end; align-items: flex-start; }
.sl-dock-bottom-right { grid-area: br; align-self: end; align-items: flex-end; }
.sl-panel {
  position: relative; pointer-events: auto; box-sizing: border-box; flex: 0 1 auto; min-height: 0; max-width: 100%;
  display: flex; flex-direction: column;
  background: var(--sl-bg); border: 1px solid var(--sl-border);
  border-radius: var(--sl-radius); box-shadow: 0 6px 24px rgba(0, 0, 0, 0.35);
  backdrop-filter: blur(6px); overflow: hidden;
}
.sl-panel-body { display: flex; flex-direction: column; flex: 1 1 auto; min-height: 0; }
.sl-collapsed .sl-panel-body { display: none; }
/* A panel stepped out of the way of a speaking player (LobbyOverlay.keepClear). */
.sl-yield-hidden { visibility: hidden; pointer-events: none; }
.sl-collapsed { flex: none; height: auto !important; width: auto; }
.sl-panel-title {
  margin: 0; padding: 0 12px 0 0; font-size: 12px; font-weight: 600; letter-spacing: 0.06em;
  text-transform: uppercase; color: var(--sl-muted); border-bottom: 1px solid rgba(255, 255, 255, 0.06);
  display: flex; justify-content: space-between; align-items: center; gap: 8px;
}
.sl-collapsed .sl-panel-title { border-bottom: 0; }
.sl-panel-toggle {
  flex: 1; display: flex; align-items: center; gap: 8px; padding: 8px 12px; min-width: 0; border: 0; background: none;
  color: inherit; font: inherit; letter-spacing: inherit; text-transform: inherit; text-align: left; cursor: pointer;
}
.sl-panel-toggle:hover { color: var(--sl-fg); }
.sl-panel-chevron { width: 0; height: 0; border: 5px solid transparent; border-top-color: currentColor; margin-top: 5px; transition: transform 120ms; }
.sl-collapsed .sl-panel-chevron { transform: rotate(-90deg); margin-top: 0; }
.sl-panel-count:empty { display: none; }
.sl-chat-unread { padding: 1px 7px; border-radius: 9px; background: var(--sl-accent); color: var(--sl-accent-fg); letter-spacing: 0; text-transform: none; }
.sl-chat { width: var(--sl-chat-width); height: var(--sl-chat-height); }
.sl-chat-log { flex: 1; min-height: 0; overflow-y: auto; margin: 0; padding: 8px 12px; list-style: none; }
.sl-chat-message { margin: 0 0 6px; word-wrap: break-word; overflow-wrap: anywhere; }
.sl-chat-author { font-weight: 600; color: var(--sl-accent); margin-right: 6px; }
.sl-chat-message.sl-own .sl-chat-author { color: var(--sl-online); }
.sl-chat-time { float: right; margin-left: 8px; font-size: 11px; color: var(--sl-muted); }
.sl-chat-empty { color: var(--sl-muted); font-style: italic; }
.sl-chat-linked { padding: 4px 12px; font-size: 12px; color: var(--sl-muted); border-bottom: 1px solid rgba(255, 255, 255, 0.06); }
.sl-chat-linked:empty { display: none; }
.sl-chat-source { margin-right: 6px; padding: 0 5px; border-radius: 6px; font-size: 10px; text-transform: uppercase; background: rgba(255, 255, 255, 0.12); color: var(--sl-muted); }
.sl-chat-message.sl-from-guild .sl-chat-author { color: var(--sl-online); }
.sl-chat-message.sl-chat-notice { color: var(--sl-muted); font-style: italic; font-size: 12px; }
.sl-chat-form { display: flex; gap: 6px; padding: 8px; border-top: 1px solid rgba(255, 255, 255, 0.06); }
.sl-chat-input {
  flex: 1; min-width: 0; padding: 7px 10px; border-radius: 7px; border: 1px solid rgba(255, 255, 255, 0.12);
  background: rgba(255, 255, 255, 0.06); color: var(--sl-fg); font: inherit; outline: none;
}
.sl-chat-input:focus { border-color: var(--sl-accent); }
.sl-chat-send {
  padding: 7px 12px; border: 0; border-radius: 7px; background: var(--sl-accent); color: var(--sl-accent-fg);
  font: inherit; font-weight: 600; cursor: pointer;
}
.sl-chat-send:disabled { opacity: 0.5; cursor: default; }
.sl-chat-error { padding: 0 12px 6px; font-size: 12px; color: var(--sl-error); }
.sl-chat-error:empty { display: none; }
.sl-members { width: var(--sl-members-width); }
.sl-member-list { margin: 0; padding: 6px 0; list-style: none; overflow-y: auto; min-height: 0; }
.sl-member { display: flex; align-items: center; gap: 8px; padding: 4px 12px; }
.sl-member-status { width: 8px; height: 8px; border-radius: 50%; background: var(--sl-offline); flex: none; }
.sl-member.sl-connected .sl-member-status { background: var(--sl-online); box-shadow: 0 0 6px var(--sl-online); }
.sl-member-swatch { width: 12px; height: 12px; border-radius: 50%; flex: none; border: 1px solid rgba(255, 255, 255, 0.4); }
.sl-member-name { flex: 1; min-width: 0; overflow-wrap: anywhere; }
.sl-member:not(.sl-connected) .sl-member-name { color: var(--sl-muted); }
.sl-member-you { font-size: 11px; color: var(--sl-muted); }
.sl-friends { width: var(--sl-friends-width); }
.sl-friends-list { flex: 1 1 auto; min-height: 0; overflow-y: auto; padding: 4px 0; }
.sl-friends-group-title {
  margin: 6px 12px 2px; font-size: 11px; font-weight: 600; letter-spacing: 0.05em; text-transform: uppercase; color: var(--sl-muted);
}
.sl-friends-rows { margin: 0; padding: 0; list-style: none; }
.sl-friends-empty { margin: 8px 12px; color: var(--sl-muted); font-style: italic; }
.sl-friend { display: flex; align-items: center; gap: 8px; padding: 4px 12px; }
.sl-friend-status { width: 9px; height: 9px; border-radius: 50%; flex: none; background: var(--sl-offline); }
.sl-status-online { background: var(--sl-online); box-shadow: 0 0 6px var(--sl-online); }
.sl-status-idle { background: #f5b83d; }
.sl-status-dnd { background: #f2545b; }
.sl-friend-text { flex: 1; min-width: 0; display: flex; flex-direction: column; }
.sl-friend-name { overflow-wrap: anywhere; }
.sl-friend-request { flex-wrap: wrap; }
.sl-friend-request .sl-friend-text { flex: 1 1 100%; }
.sl-friend-actions { display: flex; gap: 6px; margin-left: auto; }
.sl-friend[data-status="offline"] .sl-friend-name { color: var(--sl-muted); }
.sl-friend-activity { font-size: 11px; color: var(--sl-muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.sl-friend button, .sl-friends-add-button, .sl-friends-copy, .sl-toast button {
  padding: 3px 9px; border: 0; border-radius: 6px; background: var(--sl-accent); color: var(--sl-accent-fg);
  font: inherit; font-size: 12px; font-weight: 600; cursor: pointer; flex: none;
}
.sl-friend button:disabled, .sl-toast button:disabled { opacity: 0.5; cursor: default; }
.sl-friend-decline, .sl-toast-dismiss { background: rgba(255, 255, 255, 0.12) !important; color: var(--sl-fg) !important; }
.sl-friends-you { display: flex; align-items: center; gap: 8px; padding: 6px 12px; border-bottom: 1px solid rgba(255, 255, 255, 0.06); font-size: 12px; color: var(--sl-muted); }
.sl-friends-you-text { flex: 1; min-width: 0; display: flex; flex-direction: column; }
.sl-friends-you-name { overflow-wrap: anywhere; font-family: ui-monospace, monospace; color: var(--sl-fg); }
.sl-friends-status { padding: 0 12px 4px; font-size: 12px; color: var(--sl-muted); }
.sl-friends-status:empty { display: none; }
.sl-friends-status.sl-error { color: var(--sl-error); }
.sl-friends-add { display: flex; gap: 6px; padding: 8px; border-top: 1px solid rgba(255, 255, 255, 0.06); }
.sl-friends-input {
  flex: 1; min-width: 0; padding: 5px 8px; border-radius: 6px; border: 1px solid rgba(255, 255, 255, 0.12);
  background: rgba(255, 255, 255, 0.06); color: var(--sl-fg); font: inherit; font-size: 12px; outline: none;
}
.sl-toasts { position: absolute; top: var(--sl-gap); left: 50%; transform: translateX(-50%); z-index: 2; display: flex; flex-direction: column; gap: 8px; width: min(340px, calc(100% - 24px)); pointer-events: none; }
.sl-toast {
  pointer-events: auto; overflow: hidden; border-radius: var(--sl-radius); background: var(--sl-toast-bg);
  border: 1px solid var(--sl-accent); box-shadow: 0 8px 28px rgba(0, 0, 0, 0.45); animation: sl-toast-in 180ms ease-out;
}
.sl-toast[data-valid="false"] { opacity: 0.6; border-color: rgba(255, 255, 255, 0.15); }
.sl-toast-cover { height: 64px; background-size: cover; background-position: center; }
.sl-toast-title { padding: 10px 12px 2px; font-weight: 600; }
.sl-toast-content { padding: 0 12px; color: var(--sl-muted); }
.sl-toast-actions { display: flex; gap: 6px; justify-content: flex-end; padding: 8px 12px 10px; }
.sl-toast-error { padding: 0 12px 8px; font-size: 12px; color: var(--sl-error); }
.sl-toast-error:empty { display: none; }
.sl-bar {
  display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; box-sizing: border-box;
  padding: max(8px, env(safe-area-inset-top)) max(12px, env(safe-area-inset-right)) 8px max(12px, env(safe-area-inset-left));
  background: var(--sl-bar-bg); border-bottom: 1px solid rgba(255, 255, 255, 0.07); color: var(--sl-fg);
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; max-width: 100%;
}
.sl-bar h1 { margin: 0; font-size: 16px; font-weight: 700; letter-spacing: 0.02em; white-space: nowrap; }
.sl-bar h1 span { color: var(--sl-accent); }
.sl-bar-status { color: var(--sl-muted); min-width: 0; overflow-wrap: anywhere; }
.sl-bar-status:empty { display: none; }
.sl-bar-status.sl-error { color: var(--sl-error); }
.sl-bar-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin-left: auto; min-width: 0; max-width: 100%; }
.sl-bar-you { color: var(--sl-muted); font-family: ui-monospace, monospace; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 16em; }
.sl-bar-name { display: flex; gap: 6px; min-width: 0; }
.sl-bar-name-input {
  width: 11em; min-width: 0; padding: 5px 9px; border-radius: 7px; border: 1px solid rgba(255, 255, 255, 0.12);
  background: rgba(255, 255, 255, 0.06); color: var(--sl-fg); font: inherit; outline: none;
}
.sl-bar-name-input:focus { border-color: var(--sl-accent); }
.sl-bar-button {
  padding: 5px 11px; border: 0; border-radius: 7px; background: var(--sl-accent); color: var(--sl-accent-fg);
  font: inherit; font-weight: 600; cursor: pointer; white-space: nowrap;
}
.sl-bar-button:disabled { opacity: 0.6; cursor: default; }
.sl-bar-secondary { background: rgba(255, 255, 255, 0.1); color: var(--sl-fg); }
.sl-bar-voice-hint { color: var(--sl-muted); white-space: nowrap; }
/* Hold to talk, for fingers: shown in a call on a touch screen or a narrow one (the V key has no finger). */
.sl-bar-talk {
  display: none; min-width: 44px; min-height: 44px; padding: 0 16px; border: 2px solid var(--sl-accent); border-radius: 22px;
  background: rgba(124, 156, 255, 0.12); color: var(--sl-fg); font: inherit; font-weight: 700; cursor: pointer;
  touch-action: none; user-select: none; -webkit-user-select: none; -webkit-touch-callout: none;
}
.sl-bar-talk[aria-pressed="true"] { background: var(--sl-online); border-color: var(--sl-online); color: var(--sl-accent-fg); }
@media (pointer: coarse), (max-width: 600px) {
  .sl-bar-talk:not([hidden]) { display: inline-flex; align-items: center; justify-content: center; }
  /* Touch targets of at least 44 px (platform guidelines). */
  .sl-bar-button, .sl-bar-name-input { min-height: 44px; }
  .sl-panel-toggle { min-height: 44px; }
  .sl-friend button, .sl-friends-add-button, .sl-friends-copy, .sl-toast button, .sl-chat-send { min-height: 44px; min-width: 44px; }
  .sl-chat-input, .sl-friends-input { min-height: 44px; box-sizing: border-box; }
}
/* No key to hold on a touch-only device: the button says what to do instead. */
@media (hover: none) and (pointer: coarse) {
  .sl-bar-voice-hint { display: none; }
}
.sl-bar :focus-visible, .sl-overlay :focus-visible { outline: 2px solid var(--sl-accent); outline-offset: 1px; }
@media (max-width: 720px) {
  .sl-bar { padding: 6px 8px; gap: 4px 8px; font-size: 13px; }
  .sl-bar-you { display: none; }
  .sl-bar-name-input { width: 8.5em; }
  .sl-bar-controls { margin-left: 0; }
  .sl-bar-wide { display: none; }
}
/* Phones and small canvases: the top panels share the top row, the chat is a drawer across the bottom. */
@container sl-overlay (max-width: 599px) {
  .sl-layout { --sl-gap: 8px; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); grid-template-areas: "tl tr" "bl br"; }
  .sl-layout:has(.sl-dock-top-right:empty) .sl-dock-top-left, .sl-layout:has(.sl-dock-top-left:empty) .sl-dock-top-right,
  .sl-layout:has(.sl-dock-bottom-right:empty) .sl-dock-bottom-left, .sl-layout:has(.sl-dock-bottom-left:empty) .sl-dock-bottom-right { grid-column: 1 / -1; }
  .sl-dock { align-items: stretch; }
  .sl-panel { width: auto; }
  .sl-chat { height: min(var(--sl-chat-height), 100%); }
  .sl-drawer { border-radius: var(--sl-radius) var(--sl-radius) 6px 6px; }
  .sl-friend-activity { white-space: normal; }
}
@keyframes sl-toast-in { from { transform: translateY(-8px); opacity: 0; } to { transform: none; opacity: 1; } }
`;

const ATTRIBUTE = 'data-social-layer';
const users = new WeakMap<Document, number>();

/** Adds the stylesheet to `doc` unless present; pair every call with {@link releaseStyles}. */
export function retainStyles(doc: Document): void {
  const count = users.get(doc) ?? 0;
  users.set(doc, count + 1);
  if (count > 0) return;
  const style = doc.createElement('style');
  style.setAttribute(ATTRIBUTE, '');
  style.textContent = CSS;
  doc.head.appendChild(style);
}

export function releaseStyles(doc: Document): void {
  const count = (users.get(doc) ?? 0) - 1;
  if (count > 0) {
    users.set(doc, count);
    return;
  }
  users.delete(doc);
  doc.head.querySelector(`style[${ATTRIBUTE}]`)?.remove();
}
