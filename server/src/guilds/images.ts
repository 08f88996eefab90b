import { createHash } from 'node:crypto';

/**
 * Images (guild icons and banners, member avatars and banners) arrive as data URIs, the public
 * upload form; objects carry a hash of the image, as the public shapes do (`a_` prefix when
 * animated). Serving the images is the CDN's part, not built yet.
 */
export function imageHash(dataUri: string | null): string | null {
  if (dataUri === null) return null;
  const hash = createHash('sha256').update(dataUri).digest('hex').slice(0, 32);
  return dataUri.startsWith('data:image/gif') ? `a_${hash}` : hash;
}
