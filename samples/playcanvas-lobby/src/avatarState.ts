/** Lobby member metadata: string keys to string values, as on the wire. */
type Metadata = Record<string, string>;

/**
 * The play field, in world units. Positions in member metadata use these units: the same as the
 * Phaser sample's, so players of both samples who open the same `?lobby=` secret on one server
 * see each other. `world.ts` maps them onto the 3D ground.
 */
export const WORLD = { width: 1024, height: 640 } as const;

/** What each member shares through lobby member metadata (values are strings on the wire). */
export interface AvatarState {
  x: number;
  y: number;
  color: string;
}

export function clampToWorld(x: number, y: number): { x: number; y: number } {
  const margin = 30;
  return {
    x: Math.round(Math.min(WORLD.width - margin, Math.max(margin, x))),
    y: Math.round(Math.min(WORLD.height - margin, Math.max(margin, y))),
  };
}

export function encodeAvatarState(state: AvatarState): Metadata {
  return { x: String(state.x), y: String(state.y), color: state.color };
}

/** Reads a member's metadata; anything missing or malformed gets a neutral default. */
export function decodeAvatarState(metadata: Metadata | null | undefined): AvatarState {
  const x = Number(metadata?.x);
  const y = Number(metadata?.y);
  const position = clampToWorld(Number.isFinite(x) ? x : WORLD.width / 2, Number.isFinite(y) ? y : WORLD.height / 2);
  const color = /^#[0-9a-fA-F]{6}$/.test(metadata?.color ?? '') ? (metadata?.color as string) : '#adb5bd';
  return { ...position, color };
}

export function randomSpawn(): { x: number; y: number } {
  const [a = 0, b = 0] = crypto.getRandomValues(new Uint32Array(2));
  return clampToWorld(120 + (a % (WORLD.width - 240)), 120 + (b % (WORLD.height - 240)));
}

const POSITION_KEY = 'socialLayer.playcanvasLobby.position.';

/** Where this device's avatar last stood in a lobby, so a reload puts it back there. */
export function loadPosition(secret: string, storage: Storage = localStorage): { x: number; y: number } | undefined {
  const raw = storage.getItem(POSITION_KEY + secret);
  const [x, y] = (raw ?? '').split(',').map(Number);
  if (raw && Number.isFinite(x) && Number.isFinite(y)) return clampToWorld(x as number, y as number);
  return undefined;
}

export function savePosition(secret: string, position: { x: number; y: number }, storage: Storage = localStorage): void {
  storage.setItem(POSITION_KEY + secret, `${position.x},${position.y}`);
}
