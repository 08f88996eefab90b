/** Insets (px, from each edge of the overlay) that leave a rectangle no panel covers. */
export interface SafeArea {
  /** Inset from the overlay's left edge, in CSS pixels. */
  left: number;
  /** Inset from the top edge, in CSS pixels. */
  top: number;
  /** Inset from the right edge, in CSS pixels. */
  right: number;
  /** Inset from the bottom edge, in CSS pixels. */
  bottom: number;
  /** The free rectangle itself, in overlay coordinates (its parent's, the canvas's box). */
  width: number;
  /** Height of the free rectangle. */
  height: number;
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * The largest rectangle of the overlay, inset from its edges, that none of `obstacles` covers,
 * found greedily: each obstacle still in the way is cut off from the side that costs the least
 * area. Panels sit in the corners and along the edges, so that is the side they stand on.
 */
export function safeAreaAround(width: number, height: number, obstacles: readonly Box[]): SafeArea {
  const free: Box = { left: 0, top: 0, right: width, bottom: height };
  const overlaps = (o: Box) => o.left < free.right && o.right > free.left && o.top < free.bottom && o.bottom > free.top;
  for (let pass = 0; pass < obstacles.length * 4; pass++) {
    const hit = obstacles.find(overlaps);
    if (!hit) break;
    const cuts: Box[] = [
      { ...free, left: Math.max(free.left, hit.right) },
      { ...free, right: Math.min(free.right, hit.left) },
      { ...free, top: Math.max(free.top, hit.bottom) },
      { ...free, bottom: Math.min(free.bottom, hit.top) },
    ];
    const area = (b: Box) => Math.max(0, b.right - b.left) * Math.max(0, b.bottom - b.top);
    Object.assign(free, cuts.reduce((best, cut) => (area(cut) > area(best) ? cut : best)));
  }
  const w = Math.max(0, free.right - free.left);
  const h = Math.max(0, free.bottom - free.top);
  return { left: free.left, top: free.top, right: width - free.right, bottom: height - free.bottom, width: w, height: h };
}
