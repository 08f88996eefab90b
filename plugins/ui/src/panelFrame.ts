import { el } from './dom.ts';

/** A panel's parts: the section, its heading's toggle and count, and the body it collapses. */
export interface PanelFrame {
  element: HTMLElement;
  toggle: HTMLButtonElement;
  count: HTMLElement;
  body: HTMLElement;
}

let nextId = 0;

/**
 * The frame every panel shares: a `section` named by its title (a landmark screen readers list),
 * a heading whose button collapses the panel to its title bar (`aria-expanded`, `aria-controls`),
 * and the body. Collapsing is the player's way to clear the play field one panel at a time.
 */
export function createPanelFrame(doc: Document, className: string, title: string, anchor: string): PanelFrame {
  const element = el(doc, 'section', `sl-panel ${className} sl-anchor-${anchor}`);
  element.setAttribute('aria-label', title);
  const heading = el(doc, 'h2', 'sl-panel-title');
  const toggle = el(doc, 'button', 'sl-panel-toggle');
  toggle.type = 'button';
  const label = el(doc, 'span', 'sl-panel-label');
  label.textContent = title;
  const chevron = el(doc, 'span', 'sl-panel-chevron');
  chevron.setAttribute('aria-hidden', 'true');
  toggle.append(label, chevron);
  const count = el(doc, 'span', 'sl-panel-count');
  heading.append(toggle, count);
  const body = el(doc, 'div', 'sl-panel-body');
  body.id = `sl-panel-body-${++nextId}`;
  toggle.setAttribute('aria-controls', body.id);
  toggle.setAttribute('aria-expanded', 'true');
  toggle.title = `Collapse or expand ${title}`;
  element.append(heading, body);
  toggle.addEventListener('click', () => setPanelCollapsed(element, !isPanelCollapsed(element)));
  return { element, toggle, count, body };
}

/** Whether an overlay panel is folded to its title bar. */
export function isPanelCollapsed(panel: HTMLElement): boolean {
  return panel.classList.contains('sl-collapsed');
}

/** Collapses a panel to its title bar or expands it; the overlay hears it (`sl-layout`) and re-measures. */
export function setPanelCollapsed(panel: HTMLElement, collapsed: boolean): void {
  if (isPanelCollapsed(panel) === collapsed) return;
  panel.classList.toggle('sl-collapsed', collapsed);
  panel.querySelector('.sl-panel-toggle')?.setAttribute('aria-expanded', String(!collapsed));
  // The panel's own window's Event: a page in a frame (or a test DOM) has its own constructors.
  const EventClass = panel.ownerDocument.defaultView?.Event ?? Event;
  panel.dispatchEvent(new EventClass('sl-layout', { bubbles: true }));
}
