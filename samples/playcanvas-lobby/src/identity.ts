/**
 * Who the player is on this device. A guest account is keyed by a random device ID kept in
 * localStorage: the same browser gets the same account back after a reload or a restart.
 */

const DEVICE_ID_KEY = 'socialLayer.playcanvasLobby.deviceId';
const NAME_KEY = 'socialLayer.playcanvasLobby.displayName';
const COLOR_KEY = 'socialLayer.playcanvasLobby.color';

/** Avatar colors: bright enough to read a white name over, distinct from each other. */
export const AVATAR_COLORS = ['#ff6b6b', '#ffa94d', '#ffd43b', '#69db7c', '#38d9a9', '#4dabf7', '#9775fa', '#f783ac'];

const ADJECTIVES = ['Brave', 'Swift', 'Clever', 'Sunny', 'Lucky', 'Mighty', 'Quiet', 'Jolly', 'Cosmic', 'Nimble'];
const ANIMALS = ['Otter', 'Fox', 'Panda', 'Falcon', 'Koala', 'Lynx', 'Puffin', 'Gecko', 'Badger', 'Heron'];

/** `bytes` random bytes from the CSPRNG, as lowercase hex. */
export function randomHex(bytes: number): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buffer, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function randomItem<T>(items: readonly T[]): T {
  const [index = 0] = crypto.getRandomValues(new Uint32Array(1));
  return items[index % items.length] as T;
}

/** The device ID: 32 hex characters (128 random bits), created on first use. */
export function getOrCreateDeviceId(storage: Storage = localStorage): string {
  const existing = storage.getItem(DEVICE_ID_KEY);
  if (existing && /^[0-9a-f]{32}$/.test(existing)) return existing;
  const deviceId = randomHex(16);
  storage.setItem(DEVICE_ID_KEY, deviceId);
  return deviceId;
}

/** A friendly default name such as "Swift Otter 42". */
export function generateGuestName(): string {
  const [n = 0] = crypto.getRandomValues(new Uint8Array(1));
  return `${randomItem(ADJECTIVES)} ${randomItem(ANIMALS)} ${n % 100}`;
}

/** The name the player picked (or was given) on this device, created on first use. */
export function getOrCreateDisplayName(storage: Storage = localStorage): string {
  const existing = storage.getItem(NAME_KEY)?.trim();
  if (existing) return existing;
  const name = generateGuestName();
  storage.setItem(NAME_KEY, name);
  return name;
}

export function saveDisplayName(name: string, storage: Storage = localStorage): void {
  storage.setItem(NAME_KEY, name);
}

/** The avatar color of this device, picked at random on first use. */
export function getOrCreateColor(storage: Storage = localStorage): string {
  const existing = storage.getItem(COLOR_KEY);
  if (existing && AVATAR_COLORS.includes(existing)) return existing;
  const color = randomItem(AVATAR_COLORS);
  storage.setItem(COLOR_KEY, color);
  return color;
}
