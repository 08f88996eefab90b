import { pickRandom, type GameStorage, type MemberState } from '@social-layer/ui';

/**
 * The play field, in world units. Positions in member metadata use these units: the same as the
 * Phaser sample's, so players of every sample who open the same `?lobby=` on one server meet.
 * `world.ts` maps them onto the 3D ground.
 */
export const WORLD = { width: 1024, height: 640 } as const;

/** Avatar colors: bright enough to read a white name over, distinct from each other. */
const COLORS = ['#ff6b6b', '#ffa94d', '#ffd43b', '#69db7c', '#38d9a9', '#4dabf7', '#9775fa', '#f783ac'];

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

export const encodeAvatar = (state: AvatarState): MemberState => ({ x: String(state.x), y: String(state.y), color: state.color });

/** Reads a member's metadata; anything missing or malformed gets a neutral default. */
export function decodeAvatar(metadata: MemberState | undefined): AvatarState {
  const x = Number(metadata?.x);
  const y = Number(metadata?.y);
  const position = clampToWorld(Number.isFinite(x) ? x : WORLD.width / 2, Number.isFinite(y) ? y : WORLD.height / 2);
  const color = /^#[0-9a-fA-F]{6}$/.test(metadata?.color ?? '') ? (metadata?.color as string) : '#adb5bd';
  return { ...position, color };
}

/** A new player's avatar: a random spot away from the walls, in this device's color. */
export function newAvatar(storage: GameStorage): MemberState {
  const [a = 0, b = 0] = crypto.getRandomValues(new Uint32Array(2));
  const spot = clampToWorld(120 + (a % (WORLD.width - 240)), 120 + (b % (WORLD.height - 240)));
  return encodeAvatar({ ...spot, color: storage.getOrCreate('color', () => pickRandom(COLORS), (c) => COLORS.includes(c)) });
}
