import type { PNG as PngImage } from 'pngjs';

/**
 * The default avatars (`/embed/avatars/{index}.png`): what a user without an avatar of their own
 * shows. Users cannot set an avatar on this platform yet, so every UserHandle.avatarUrl lands
 * here. The index rule is the public one for users without a discriminator, `(id >> 22) % 6`,
 * so there are six: a white head-and-shoulders figure on six background colours.
 */
export const DEFAULT_AVATAR_COUNT = 6;

/** The sizes the public CDN accepts (`?size=`): powers of two from 16 to 4096. */
export const AVATAR_SIZES = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096] as const;
/** Served when no size is asked for, as the public default avatars are. */
export const DEFAULT_AVATAR_SIZE = 256;
/**
 * Largest size drawn: a flat two-colour figure gains nothing above it, and a 4096-pixel image
 * would cost 64 MiB of pixels to encode. Larger requests get this one (browsers scale it).
 */
export const MAX_DRAWN_SIZE = 1024;

const COLOURS: readonly [number, number, number][] = [
  [0x58, 0x65, 0xf2],
  [0x75, 0x7e, 0x8a],
  [0x3b, 0xa5, 0x5c],
  [0xfa, 0xa6, 0x1a],
  [0xed, 0x42, 0x45],
  [0xeb, 0x45, 0x9f],
];

const cache = new Map<string, Buffer>();

/** The PNG of default avatar `index` at `size` pixels square (capped at MAX_DRAWN_SIZE); cached. */
export async function defaultAvatarPng(index: number, size: number = DEFAULT_AVATAR_SIZE): Promise<Buffer> {
  if (!Number.isInteger(index) || index < 0 || index >= DEFAULT_AVATAR_COUNT) throw new RangeError(`default avatar index ${index}`);
  const side = Math.min(size, MAX_DRAWN_SIZE);
  const key = `${index}:${side}`;
  let png = cache.get(key);
  if (!png) {
    // The encoder is loaded with the first avatar drawn (about 7 MB), not when the server starts.
    const { PNG } = await import('pngjs');
    png = draw(PNG, COLOURS[index]!, side);
    cache.set(key, png);
  }
  return png;
}

function draw(PNG: typeof PngImage, [r, g, b]: [number, number, number], side: number): Buffer {
  const image = new PNG({ width: side, height: side, colorType: 6 });
  // In units of the side: a head (circle) above shoulders (the top of a larger circle), both white.
  const head = { x: 0.5, y: 0.4, r: 0.17 };
  const body = { x: 0.5, y: 0.98, r: 0.32 };
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const u = (x + 0.5) / side;
      const v = (y + 0.5) / side;
      const white = (u - head.x) ** 2 + (v - head.y) ** 2 <= head.r ** 2 || ((u - body.x) ** 2 + (v - body.y) ** 2 <= body.r ** 2 && v <= 0.86);
      const i = (y * side + x) * 4;
      image.data[i] = white ? 255 : r;
      image.data[i + 1] = white ? 255 : g;
      image.data[i + 2] = white ? 255 : b;
      image.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(image);
}
