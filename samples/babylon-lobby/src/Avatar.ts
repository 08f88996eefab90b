import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { DynamicTexture } from '@babylonjs/core/Materials/Textures/dynamicTexture.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { CreateCapsule } from '@babylonjs/core/Meshes/Builders/capsuleBuilder.js';
import { CreatePlane } from '@babylonjs/core/Meshes/Builders/planeBuilder.js';
import { CreateTorus } from '@babylonjs/core/Meshes/Builders/torusBuilder.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { worldToGround } from './ground.ts';

/** Walking speed in world units per millisecond (the Phaser sample's pace). */
const SPEED = 1 / 2.2;
const LABEL = { width: 512, height: 96 } as const;
/** The name tag's width in meters. */
const LABEL_WIDTH = 4.2;

/**
 * One lobby member on the ground: a colored capsule with a name tag that always faces the
 * camera, a white ring under your own, and a green ring while the player is heard in the call.
 * Positions are world units (member metadata); the node sits where `ground.ts` maps them.
 */
export class Avatar {
  readonly userId: string;
  /** Where the avatar stands now, in world units (mid-walk included). */
  x: number;
  y: number;
  /** Where it is heading (its position once the walk ends). */
  target: { x: number; y: number };
  readonly #root: TransformNode;
  readonly #bodyMaterial: StandardMaterial;
  readonly #label: DynamicTexture;
  readonly #labelMaterial: StandardMaterial;
  readonly #speaking: Mesh;
  readonly #labelMesh: Mesh;
  readonly #meshes: Mesh[] = [];
  #name = '';
  #color = '';
  #connected = true;

  constructor(scene: Scene, userId: string, x: number, y: number, isSelf: boolean) {
    this.userId = userId;
    this.x = x;
    this.y = y;
    this.target = { x, y };
    this.#root = new TransformNode(`avatar-${userId}`, scene);

    const body = CreateCapsule(`avatar-body-${userId}`, { height: 1.7, radius: 0.45, tessellation: 16 }, scene);
    body.position.y = 0.85;
    this.#bodyMaterial = new StandardMaterial(`avatar-body-${userId}`, scene);
    this.#bodyMaterial.specularColor = new Color3(0.15, 0.15, 0.15);
    body.material = this.#bodyMaterial;

    // Rings lie flat on the ground: yours is white, the speaking one green and glowing.
    const flat = new StandardMaterial(`avatar-you-${userId}`, scene);
    flat.disableLighting = true;
    flat.emissiveColor = Color3.White();
    const you = CreateTorus(`avatar-you-${userId}`, { diameter: 1.3, thickness: 0.06, tessellation: 32 }, scene);
    you.position.y = 0.03;
    you.material = flat;
    you.isVisible = isSelf;

    const ring = new StandardMaterial(`avatar-speaking-${userId}`, scene);
    ring.disableLighting = true;
    ring.emissiveColor = Color3.FromHexString('#3ddc84');
    this.#speaking = CreateTorus(`avatar-speaking-${userId}`, { diameter: 1.9, thickness: 0.14, tessellation: 40 }, scene);
    this.#speaking.position.y = 0.05;
    this.#speaking.material = ring;
    this.#speaking.isVisible = false;

    this.#label = new DynamicTexture(`avatar-label-${userId}`, { width: LABEL.width, height: LABEL.height }, scene, true);
    this.#label.hasAlpha = true;
    this.#labelMaterial = new StandardMaterial(`avatar-label-${userId}`, scene);
    this.#labelMaterial.diffuseTexture = this.#label;
    this.#labelMaterial.emissiveColor = Color3.White();
    this.#labelMaterial.disableLighting = true;
    this.#labelMaterial.useAlphaFromDiffuseTexture = true;
    this.#labelMaterial.backFaceCulling = false;
    const label = CreatePlane(`avatar-label-${userId}`, { width: LABEL_WIDTH, height: LABEL_WIDTH * (LABEL.height / LABEL.width) }, scene);
    label.position.y = 2.4;
    label.billboardMode = Mesh.BILLBOARDMODE_ALL;
    label.material = this.#labelMaterial;
    label.renderingGroupId = 1; // drawn over other avatars' bodies, so names stay readable
    this.#labelMesh = label;

    for (const mesh of [body, you, this.#speaking, label]) {
      mesh.parent = this.#root;
      mesh.isPickable = false; // clicks pick the ground only
      this.#meshes.push(mesh);
    }
    this.#place();
  }

  /** Draws the name tag `scale` times its size (readable on a small canvas), its bottom edge kept above the head. */
  setLabelScale(scale: number): this {
    this.#labelMesh.scaling.setAll(scale);
    this.#labelMesh.position.y = 2.4 + ((scale - 1) * LABEL_WIDTH * (LABEL.height / LABEL.width)) / 2;
    return this;
  }

  /** Name, color and connected state; redraws only what changed. */
  setLook(name: string, color: string, connected: boolean): this {
    if (color !== this.#color || connected !== this.#connected) {
      this.#bodyMaterial.diffuseColor = Color3.FromHexString(color);
      this.#bodyMaterial.alpha = connected ? 1 : 0.4;
      this.#labelMaterial.alpha = connected ? 1 : 0.55;
    }
    if (name !== this.#name) this.#drawLabel(name);
    this.#name = name;
    this.#color = color;
    this.#connected = connected;
    return this;
  }

  /** Shows or hides the speaking ring. */
  setSpeaking(speaking: boolean): this {
    this.#speaking.isVisible = speaking;
    return this;
  }

  get speaking(): boolean {
    return this.#speaking.isVisible;
  }

  /** Still walking toward its target (the scene must keep drawing frames). */
  get moving(): boolean {
    return this.target.x !== this.x || this.target.y !== this.y;
  }

  /** Walks to (x, y) at a steady speed; a new target replaces the one being walked to. */
  walkTo(x: number, y: number): void {
    this.target = { x, y };
  }

  /** Advances the walk by `elapsedMs` (called once a frame). */
  update(elapsedMs: number): void {
    const dx = this.target.x - this.x;
    const dy = this.target.y - this.y;
    const distance = Math.hypot(dx, dy);
    if (distance === 0) return;
    const step = Math.min(distance, Math.max(SPEED * elapsedMs, distance * 0.02));
    if (step >= distance) {
      this.x = this.target.x;
      this.y = this.target.y;
    } else {
      this.x += (dx / distance) * step;
      this.y += (dy / distance) * step;
    }
    this.#place();
  }

  dispose(): void {
    for (const mesh of this.#meshes) mesh.material?.dispose(true, true);
    this.#root.dispose();
  }

  #place(): void {
    const at = worldToGround(this.x, this.y);
    this.#root.position.set(at.x, 0, at.z);
  }

  #drawLabel(name: string): void {
    const ctx = this.#label.getContext() as unknown as CanvasRenderingContext2D;
    ctx.clearRect(0, 0, LABEL.width, LABEL.height);
    ctx.font = '600 48px system-ui, sans-serif';
    const width = Math.min(LABEL.width - 8, ctx.measureText(name).width + 40);
    const left = (LABEL.width - width) / 2;
    ctx.fillStyle = 'rgba(0, 0, 0, 0.55)';
    ctx.beginPath();
    ctx.roundRect(left, 14, width, LABEL.height - 28, 22);
    ctx.fill();
    ctx.fillStyle = '#ffffff';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(name, LABEL.width / 2, LABEL.height / 2 + 2, LABEL.width - 48);
    this.#label.update();
  }
}
