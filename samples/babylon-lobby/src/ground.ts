import { WORLD } from './avatarState.ts';

/** World units (member metadata) per meter of ground: the 1024 x 640 field is 32 m x 20 m. */
export const UNITS_PER_METER = 32;

/** The ground plane's size in meters, centered on the origin; x to the right, z away from the camera. */
export const GROUND = { width: WORLD.width / UNITS_PER_METER, depth: WORLD.height / UNITS_PER_METER } as const;

/** A world position (y grows toward the camera, as on the 2D field) on the ground plane. */
export function worldToGround(x: number, y: number): { x: number; z: number } {
  return { x: (x - WORLD.width / 2) / UNITS_PER_METER, z: (WORLD.height / 2 - y) / UNITS_PER_METER };
}

export function groundToWorld(x: number, z: number): { x: number; y: number } {
  return { x: x * UNITS_PER_METER + WORLD.width / 2, y: WORLD.height / 2 - z * UNITS_PER_METER };
}
