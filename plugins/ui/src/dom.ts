/** Creates an element with its class list in one step. */
export function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  className: string,
): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  node.className = className;
  return node;
}

/**
 * Engines listen for keys on window or the canvas (Phaser's keyboard plugin on window): keys
 * typed into a panel must stop short of them.
 */
export function stopPropagation(event: Event): void {
  event.stopPropagation();
}
