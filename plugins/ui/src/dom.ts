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

/** Phaser's keyboard plugin listens on window: keys typed into a panel must stop short of it. */
export function stopPropagation(event: Event): void {
  event.stopPropagation();
}
