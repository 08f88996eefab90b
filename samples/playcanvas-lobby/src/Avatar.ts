import * as pc from 'playcanvas';
import { ring } from './ring.ts';
import { worldToScene } from './world.ts';

/** Walking speed in world units (metadata units) per second. */
const SPEED = 420;
const BODY_HEIGHT = 1.1;
const LABEL_HEIGHT = BODY_HEIGHT + 0.35;

function material(owned: pc.Material[], color: pc.Color, options: { emissive?: boolean } = {}): pc.StandardMaterial {
  const m = new pc.StandardMaterial();
  owned.push(m);
  m.diffuse.copy(color);
  if (options.emissive) m.emissive.copy(color);
  m.gloss = 0.4;
  m.update();
  return m;
}

type Primitive = 'capsule' | 'cylinder' | 'sphere';

function part(name: string, type: Primitive, mat: pc.Material, position: pc.Vec3, scale: pc.Vec3): pc.Entity {
  const entity = new pc.Entity(name);
  entity.addComponent('render', { type, material: mat, castShadows: false });
  entity.setLocalPosition(position);
  entity.setLocalScale(scale);
  return entity;
}

/**
 * One lobby member on the ground: a coloured capsule with a nose (it faces where it walks), a
 * soft shadow, a white ring under the local player, a green ring while heard in the call, and
 * a DOM name label that follows it on screen.
 */
export class Avatar {
  readonly userId: string;
  readonly entity: pc.Entity;
  /** Where the avatar stands now, in world units (mid-walk included). */
  readonly position: { x: number; y: number };
  /** Where it is walking to. */
  target: { x: number; y: number };
  readonly label: HTMLElement;
  readonly #bodyMaterial: pc.StandardMaterial;
  /** Every material this avatar made, destroyed with it. */
  readonly #materials: pc.Material[] = [];
  readonly #speaking: pc.Entity;
  readonly #scratch = new pc.Vec3();

  constructor(app: pc.AppBase, labels: HTMLElement, userId: string, x: number, y: number, isSelf: boolean) {
    this.userId = userId;
    this.position = { x, y };
    this.target = { x, y };
    this.entity = new pc.Entity(`avatar-${userId}`);
    this.#bodyMaterial = material(this.#materials, new pc.Color(0.68, 0.71, 0.74));

    const shadow = material(this.#materials, new pc.Color(0, 0, 0));
    shadow.opacity = 0.3;
    shadow.blendType = pc.BLEND_NORMAL;
    shadow.depthWrite = false;
    shadow.update();
    this.entity.addChild(part('shadow', 'cylinder', shadow, new pc.Vec3(0, 0.01, 0), new pc.Vec3(0.8, 0.01, 0.8)));
    this.entity.addChild(
      part('body', 'capsule', this.#bodyMaterial, new pc.Vec3(0, BODY_HEIGHT / 2, 0), new pc.Vec3(0.55, BODY_HEIGHT / 2, 0.55)),
    );
    const nose = material(this.#materials, new pc.Color(0.1, 0.11, 0.17));
    this.entity.addChild(part('nose', 'sphere', nose, new pc.Vec3(0, BODY_HEIGHT * 0.7, 0.27), new pc.Vec3(0.14, 0.14, 0.14)));
    if (isSelf) {
      const white = material(this.#materials, new pc.Color(1, 1, 1), { emissive: true });
      this.entity.addChild(ring(app, 'self-ring', white, 0.42, 0.035, 0.03));
    }
    const green = material(this.#materials, new pc.Color(0.24, 0.86, 0.52), { emissive: true });
    this.#speaking = ring(app, 'speaking-ring', green, 0.62, 0.07, 0.05);
    this.#speaking.enabled = false;
    this.entity.addChild(this.#speaking);
    this.entity.setPosition(worldToScene(x, y));
    app.root.addChild(this.entity);

    this.label = labels.ownerDocument.createElement('div');
    this.label.className = isSelf ? 'avatar-label self' : 'avatar-label';
    this.label.dataset.userId = userId;
    labels.append(this.label);
  }

  setLook(name: string, color: string, connected: boolean): this {
    if (this.label.textContent !== name) this.#labelWidth = 0;
    this.label.textContent = name;
    this.label.classList.toggle('offline', !connected);
    this.#bodyMaterial.diffuse.fromString(color);
    // Offline members stay in the lobby, drawn see-through.
    this.#bodyMaterial.opacity = connected ? 1 : 0.4;
    this.#bodyMaterial.blendType = connected ? pc.BLEND_NONE : pc.BLEND_NORMAL;
    this.#bodyMaterial.update();
    return this;
  }

  /** Shows or hides the speaking ring. */
  setSpeaking(speaking: boolean): this {
    this.#speaking.enabled = speaking;
    this.label.classList.toggle('speaking', speaking);
    this.#labelWidth = 0;
    return this;
  }

  get speaking(): boolean {
    return this.#speaking.enabled;
  }

  /** Walks to (x, y) at a steady speed; a new target replaces the one being walked to. */
  walkTo(x: number, y: number): void {
    this.target = { x, y };
  }

  /** Advances the walk by `dt` seconds and turns to face the way it goes; false when it stood still. */
  update(dt: number): boolean {
    const dx = this.target.x - this.position.x;
    const dy = this.target.y - this.position.y;
    const distance = Math.hypot(dx, dy);
    if (distance === 0) return false;
    const step = SPEED * dt;
    if (step >= distance) {
      this.position.x = this.target.x;
      this.position.y = this.target.y;
    } else {
      this.position.x += (dx / distance) * step;
      this.position.y += (dy / distance) * step;
    }
    this.entity.setPosition(worldToScene(this.position.x, this.position.y, this.#scratch));
    // The nose points along +z at yaw 0; world y runs along scene z.
    this.entity.setEulerAngles(0, (Math.atan2(dx, dy) * 180) / Math.PI, 0);
    return true;
  }

  /** Puts the name label over the avatar's head on screen. */
  placeLabel(camera: pc.CameraComponent, viewWidth: number): void {
    const head = this.entity.getPosition().clone();
    head.y += LABEL_HEIGHT;
    const screen = camera.worldToScreen(head, this.#scratch);
    const visible = screen.z > 0;
    this.label.style.display = visible ? '' : 'none';
    if (!visible) return;
    // Kept whole inside the view: near the edge of a narrow canvas (a phone) a centered tag ran off it.
    // Its width is measured once per change of text or look, not every frame.
    this.#labelWidth ||= this.label.offsetWidth;
    const half = this.#labelWidth / 2 + 2;
    const x = viewWidth > 2 * half ? Math.min(Math.max(screen.x, half), viewWidth - half) : screen.x;
    this.label.style.transform = `translate(-50%, -100%) translate(${x}px, ${screen.y}px)`;
  }

  /** The label's width in CSS px, 0 until measured again. */
  #labelWidth = 0;

  destroy(): void {
    this.entity.destroy();
    this.label.remove();
    for (const m of this.#materials.splice(0)) m.destroy();
  }
}
