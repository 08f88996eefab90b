import { Vec3 } from 'playcanvas';
import { WORLD } from './avatarState.ts';

/** Metres per world unit: the 1024 x 640 field is a 16 m x 10 m ground. */
export const METRES_PER_UNIT = 1 / 64;

/** The ground's size in metres (x along the field's width, z along its height). */
export const GROUND = { width: WORLD.width * METRES_PER_UNIT, depth: WORLD.height * METRES_PER_UNIT } as const;

/** A world position (member metadata units) on the ground (y = 0), centred on the origin. */
export function worldToScene(x: number, y: number, out = new Vec3()): Vec3 {
  return out.set((x - WORLD.width / 2) * METRES_PER_UNIT, 0, (y - WORLD.height / 2) * METRES_PER_UNIT);
}

/** The inverse of worldToScene (y ignored). */
export function sceneToWorld(point: Vec3): { x: number; y: number } {
  return { x: point.x / METRES_PER_UNIT + WORLD.width / 2, y: point.z / METRES_PER_UNIT + WORLD.height / 2 };
}

/**
 * Where the ray from `from` through `to` meets the ground plane (y = 0), or undefined when it
 * runs parallel to it or points away. A click's ray comes from the camera's screenToWorld.
 */
export function rayToGround(from: Vec3, to: Vec3): Vec3 | undefined {
  const dy = to.y - from.y;
  if (Math.abs(dy) < 1e-9) return undefined;
  const t = -from.y / dy;
  if (t < 0) return undefined;
  return new Vec3().lerp(from, to, t);
}
