/** `bytes` random bytes from the CSPRNG, as lowercase hex. */
export function randomHex(bytes: number): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buffer, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** One item picked with the CSPRNG (names and colors need no security, but one source is simpler). */
export function pickRandom<T>(items: readonly T[]): T {
  if (items.length === 0) throw new Error('pickRandom: no items');
  const [index = 0] = crypto.getRandomValues(new Uint32Array(1));
  return items[index % items.length] as T;
}

const ADJECTIVES = ['Brave', 'Swift', 'Clever', 'Sunny', 'Lucky', 'Mighty', 'Quiet', 'Jolly', 'Cosmic', 'Nimble'];
const ANIMALS = ['Otter', 'Fox', 'Panda', 'Falcon', 'Koala', 'Lynx', 'Puffin', 'Gecko', 'Badger', 'Heron'];

/** A friendly default guest name such as "Swift Otter 42". */
export function generateGuestName(): string {
  const [n = 0] = crypto.getRandomValues(new Uint8Array(1));
  return `${pickRandom(ADJECTIVES)} ${pickRandom(ANIMALS)} ${n % 100}`;
}
