import { createHash } from 'node:crypto';

/** Icons arrive as data URIs (the public image data shape) and are kept in the database. */
export const MAX_ICON_BYTES = 40 * 1024;

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** Whether `bytes` begin as an image of `contentType` does (PNG, JPEG, GIF or WebP). */
export function bytesAreImage(contentType: string, bytes: Buffer): boolean {
  return MAGIC[contentType === 'image/jpg' ? 'image/jpeg' : contentType]?.(bytes) ?? false;
}

export type DecodedImage = { ok: true; hash: string; dataUri: string; contentType: string } | { ok: false; code: string; message: string };

/**
 * Checks that a data URI holds a PNG, JPEG, GIF or WebP image (by its bytes, not its label)
 * within the size limit. The hash names the image in its URL, so a changed icon gets a new URL.
 */
export function decodeImageDataUri(value: string): DecodedImage {
  const m = /^data:(image\/(?:png|jpeg|jpg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!m) return { ok: false, code: 'IMAGE_INVALID', message: 'Invalid image data: expected a base64 data URI of a PNG, JPEG, GIF or WebP image.' };
  const contentType = m[1] === 'image/jpg' ? 'image/jpeg' : m[1]!;
  const bytes = Buffer.from(m[2]!, 'base64');
  if (bytes.length > MAX_ICON_BYTES) return { ok: false, code: 'BINARY_TYPE_MAX_SIZE', message: `File cannot be larger than ${MAX_ICON_BYTES / 1024} KiB.` };
  if (!MAGIC[contentType]!(bytes)) return { ok: false, code: 'IMAGE_INVALID', message: 'Invalid image data: the bytes are not the image type the data URI names.' };
  return { ok: true, hash: createHash('sha256').update(bytes).digest('hex').slice(0, 32), dataUri: `data:${contentType};base64,${bytes.toString('base64')}`, contentType };
}

/** The image bytes and type of a stored data URI. */
export function imageBytes(dataUri: string): { contentType: string; bytes: Buffer } {
  const comma = dataUri.indexOf(',');
  return { contentType: dataUri.slice(5, dataUri.indexOf(';')), bytes: Buffer.from(dataUri.slice(comma + 1), 'base64') };
}

/** The data URI of uploaded image bytes, typed by their signature (the upload's label is not trusted). */
export function imageDataUriFromBytes(bytes: Buffer): string | undefined {
  const type = Object.keys(MAGIC).find((t) => MAGIC[t]!(bytes));
  return type ? `data:${type};base64,${bytes.toString('base64')}` : undefined;
}
