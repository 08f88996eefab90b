import '@babylonjs/core/Culling/ray.js'; // adds scene.pick (Babylon's side-effect import)
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera.js';
import { Camera } from '@babylonjs/core/Cameras/camera.js';
import { Engine } from '@babylonjs/core/Engines/engine.js';
import { PointerEventTypes, type PointerInfo } from '@babylonjs/core/Events/pointerEvents.js';
import { HemisphericLight } from '@babylonjs/core/Lights/hemisphericLight.js';
import { DynamicTexture } from '@babylonjs/core/Materials/Textures/dynamicTexture.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color.js';
import { Matrix, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateGround } from '@babylonjs/core/Meshes/Builders/groundBuilder.js';
import { CreateLineSystem } from '@babylonjs/core/Meshes/Builders/linesBuilder.js';
import { CreatePlane } from '@babylonjs/core/Meshes/Builders/planeBuilder.js';
import { CreateTorus } from '@babylonjs/core/Meshes/Builders/torusBuilder.js';
import type { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { Scene } from '@babylonjs/core/scene.js';
import { SocialLayerComponent } from '@social-layer/babylon';
import type { GameSession, MemberTracker } from '@social-layer/ui';
import { Avatar } from './Avatar.ts';
import { clampToWorld, decodeAvatar, encodeAvatar } from './avatarState.ts';
import { GROUND, groundToWorld, worldToGround } from './ground.ts';


/** The camera's vertical angle of view on a wide screen (Babylon's default), in radians. */
const VERTICAL_FOV = 0.8;
/** Narrower than this (width / height) the field's width is what must fit (see #fitField). */
const FIT_ASPECT = 1.6;
/** Canvas width (CSS px) below which name tags grow, up to MAX_LABEL_GROW, so names stay readable on a phone. */
const READABLE_WIDTH = 860;
const MAX_LABEL_GROW = 2.2;
/**
 * The play field: a Babylon.js scene with a ground plane where every member of the lobby is an
 * avatar placed where their member state says. Clicking the ground walks your avatar there and
 * shares the new spot (`session.setState`), which the others receive as a member update. The
 * Social Layer panels come from `SocialLayerComponent`, which also pumps the client's queued
 * events before every frame and frees everything with the scene.
 */
export class LobbyWorld {
  readonly engine: Engine;
  readonly scene: Scene;
  readonly camera: ArcRotateCamera;
  readonly social: SocialLayerComponent;
  readonly #canvas: HTMLCanvasElement;
  readonly #session: GameSession;
  readonly #ground: Mesh;
  readonly #avatars: MemberTracker<Avatar>;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #ripples: { mesh: Mesh; age: number }[] = [];

  constructor(canvas: HTMLCanvasElement, session: GameSession) {
    this.#canvas = canvas;
    this.#session = session;

    this.engine = new Engine(canvas, true, { stencil: true }, true);
    this.scene = new Scene(this.engine);
    this.scene.clearColor = Color4.FromHexString('#12151fff');
    // A fixed camera looking down at the field: clicks are moves, not camera drags.
    this.camera = new ArcRotateCamera('camera', -Math.PI / 2, 0.8, 30.5, new Vector3(0, 0, -1.2), this.scene);
    const light = new HemisphericLight('light', new Vector3(0.3, 1, -0.4), this.scene);
    light.groundColor = new Color3(0.25, 0.27, 0.35);
    this.#ground = this.#drawField();

    // The component pumps the client's queued events before every frame (queueEvents in main.ts).
    this.social = new SocialLayerComponent(this.scene, session.client, { pumpCallbacks: true });
    session.showPanels(this.social, {
      members: { memberColor: (id) => decodeAvatar(session.memberState(id)).color },
      // Panels step aside from a speaking player.
      locate: (id) => this.avatarBox(id),
    });
    // One avatar per member, where their state says; ours walks where we last clicked.
    this.#avatars = session.trackMembers<Avatar>({
      create: (member) => {
        const { x, y } = decodeAvatar(member.state);
        const avatar = new Avatar(this.scene, member.id, x, y, member.self);
        avatar.setSpeaking(session.voice.isSpeaking(member.id)).setLabelScale(this.#labelGrow);
        return avatar;
      },
      update: (avatar, member) => {
        const state = decodeAvatar(member.state);
        avatar.walkTo(state.x, state.y);
        avatar.setLook(member.name, state.color, member.connected);
      },
      destroy: (avatar) => avatar.dispose(),
      synced: () => {
        this.social.members?.refresh();
        this.invalidate();
      },
    });
    this.#unsubscribe.push(
      session.voice.onSpeaking((userId, speaking) => {
        this.#avatars.items.get(userId)?.setSpeaking(speaking);
        this.invalidate();
      }),
    );
    this.scene.onPointerObservable.add(this.#onPointer);
    this.scene.onBeforeRenderObservable.add(this.#onBeforeRender);
    // The game's own listeners go with the scene, as the component's do.
    this.scene.onDisposeObservable.addOnce(() => {
      for (const off of this.#unsubscribe.splice(0)) off();
      this.#avatars.stop();
    });
    window.addEventListener('resize', this.#onResize);

    // Frames are drawn only when something changed or moves: a software-rendered page drawing
    // every frame starves the audio worklets (voice lagged by seconds under load). Idle frames
    // still pump the client, which the component otherwise does before each render.
    this.scene.onPointerObservable.add(() => this.invalidate());
    this.engine.runRenderLoop(() => {
      if (this.#dirty || this.#ripples.length > 0 || [...this.#avatars.items.values()].some((a) => a.moving)) {
        this.#dirty = false;
        this.scene.render();
      } else {
        this.#session.client.runCallbacks();
      }
    });
  }

  #dirty = true;

  /** Asks for a frame: call after any change to what the scene shows. */
  invalidate(): void {
    this.#dirty = true;
  }

  /** Where a member's avatar stands now (mid-walk included), in world units. */
  avatarPosition(userId: string): { x: number; y: number } | undefined {
    const avatar = this.#avatars.items.get(userId);
    return avatar ? { x: Math.round(avatar.x), y: Math.round(avatar.y) } : undefined;
  }

  isSpeakingShown(userId: string): boolean {
    return this.#avatars.items.get(userId)?.speaking ?? false;
  }

  /** Walks your avatar to a world position and tells the lobby. */
  moveSelfTo(x: number, y: number): void {
    const target = clampToWorld(x, y);
    this.#avatars.items.get(this.#session.userId)?.walkTo(target.x, target.y);
    this.#session.setState(encodeAvatar({ ...decodeAvatar(this.#session.state), ...target }));
  }

  /**
   * A member's avatar with its name tag, on the page, roughly: around where it stands, 1.2 m to
   * each side and 3 m up (the tag floats at 2.4 m), measured from how long a metre is drawn there.
   */
  avatarBox(userId: string): { x: number; y: number; width: number; height: number } | undefined {
    const at = this.avatarPosition(userId);
    if (!at) return undefined;
    const foot = this.worldToClient(at.x, at.y);
    const metre = Math.abs(this.worldToClient(at.x + 64, at.y).x - foot.x);
    return { x: foot.x - 1.2 * metre, y: foot.y - 3 * metre, width: 2.4 * metre, height: 3.5 * metre };
  }

  /** Page (viewport) coordinates of a world position on the ground, to click there. */
  worldToClient(x: number, y: number): { x: number; y: number } {
    const at = worldToGround(x, y);
    const width = this.engine.getRenderWidth();
    const height = this.engine.getRenderHeight();
    const screen = Vector3.Project(
      new Vector3(at.x, 0, at.z),
      Matrix.IdentityReadOnly,
      this.scene.getTransformMatrix(),
      this.camera.viewport.toGlobal(width, height),
    );
    const rect = this.#canvas.getBoundingClientRect();
    return { x: rect.left + (screen.x / width) * rect.width, y: rect.top + (screen.y / height) * rect.height };
  }

  /** Stops rendering and frees the scene; the component frees the panels and its listeners. */
  dispose(): void {
    window.removeEventListener('resize', this.#onResize);
    this.engine.stopRenderLoop();
    this.scene.dispose();
    this.engine.dispose();
  }

  readonly #onResize = (): void => {
    this.engine.resize();
    this.invalidate();
  };

  readonly #onPointer = (info: PointerInfo): void => {
    if (info.type !== PointerEventTypes.POINTERDOWN || info.event.button !== 0) return;
    const pick = this.scene.pick(this.scene.pointerX, this.scene.pointerY, (mesh) => mesh === this.#ground);
    if (!pick.hit || !pick.pickedPoint) return;
    const world = groundToWorld(pick.pickedPoint.x, pick.pickedPoint.z);
    this.#ripple(pick.pickedPoint);
    this.moveSelfTo(world.x, world.y);
  };

  /**
   * Keeps the whole field in view at any shape: on a wide screen the camera's vertical angle is
   * fixed; narrower than FIT_ASPECT (a phone held upright) its horizontal angle is, so the field's
   * sides, and the players standing there, are not cut off.
   */
  #fitField(): void {
    const aspect = this.engine.getRenderWidth() / Math.max(1, this.engine.getRenderHeight());
    const narrow = aspect < FIT_ASPECT;
    this.camera.fovMode = narrow ? Camera.FOVMODE_HORIZONTAL_FIXED : Camera.FOVMODE_VERTICAL_FIXED;
    this.camera.fov = narrow ? 2 * Math.atan(Math.tan(VERTICAL_FOV / 2) * FIT_ASPECT) : VERTICAL_FOV;
    const width = this.#canvas.clientWidth;
    const grow = width > 0 ? Math.min(MAX_LABEL_GROW, Math.max(1, READABLE_WIDTH / width)) : 1;
    if (grow === this.#labelGrow) return;
    this.#labelGrow = grow;
    for (const avatar of this.#avatars.items.values()) avatar.setLabelScale(grow);
  }

  /** How much larger than their size name tags are drawn (see #fitField). */
  #labelGrow = 1;

  readonly #onBeforeRender = (): void => {
    this.#fitField();
    const elapsed = Math.min(this.engine.getDeltaTime(), 100);
    for (const avatar of this.#avatars.items.values()) avatar.update(elapsed);
    for (const ripple of [...this.#ripples]) {
      ripple.age += elapsed;
      const t = ripple.age / 450;
      ripple.mesh.scaling.setAll(1 + 1.4 * t);
      ripple.mesh.visibility = Math.max(0, 0.8 * (1 - t));
      if (t >= 1) {
        ripple.mesh.dispose(false, true);
        this.#ripples.splice(this.#ripples.indexOf(ripple), 1);
      }
    }
  };

  #drawField(): Mesh {
    const scene = this.scene;
    const ground = CreateGround('ground', { width: GROUND.width, height: GROUND.depth }, scene);
    const material = new StandardMaterial('ground', scene);
    material.diffuseColor = Color3.FromHexString('#1d2335');
    material.specularColor = Color3.Black();
    ground.material = material;

    // A 2 m grid and an accent border, slightly above the ground so they never z-fight.
    const lines: Vector3[][] = [];
    const halfW = GROUND.width / 2;
    const halfD = GROUND.depth / 2;
    for (let x = -halfW + 2; x < halfW; x += 2) lines.push([new Vector3(x, 0.01, -halfD), new Vector3(x, 0.01, halfD)]);
    for (let z = -halfD + 2; z < halfD; z += 2) lines.push([new Vector3(-halfW, 0.01, z), new Vector3(halfW, 0.01, z)]);
    const grid = CreateLineSystem('grid', { lines }, scene);
    grid.color = new Color3(0.3, 0.33, 0.45);
    grid.isPickable = false;
    const corners = [
      new Vector3(-halfW, 0.02, -halfD),
      new Vector3(halfW, 0.02, -halfD),
      new Vector3(halfW, 0.02, halfD),
      new Vector3(-halfW, 0.02, halfD),
      new Vector3(-halfW, 0.02, -halfD),
    ];
    const border = CreateLineSystem('border', { lines: [corners] }, scene);
    border.color = Color3.FromHexString('#7c9cff');
    border.isPickable = false;

    // The hint stands at the far edge of the field, like a sign.
    const texture = new DynamicTexture('hint', { width: 1024, height: 64 }, scene, true);
    texture.hasAlpha = true;
    texture.drawText('Click the ground to walk · share the URL to invite a friend', null, 42, 'bold 27px sans-serif', '#9aa1b8', 'transparent', true);
    const hintMaterial = new StandardMaterial('hint', scene);
    hintMaterial.diffuseTexture = texture;
    hintMaterial.emissiveColor = Color3.White();
    hintMaterial.disableLighting = true;
    hintMaterial.useAlphaFromDiffuseTexture = true;
    const hint = CreatePlane('hint', { width: 22, height: 22 / 16 }, scene);
    hint.position.set(0, 0.8, halfD + 0.5);
    hint.material = hintMaterial;
    hint.isPickable = false;
    return ground;
  }

  #ripple(at: Vector3): void {
    const mesh = CreateTorus('ripple', { diameter: 0.8, thickness: 0.05, tessellation: 32 }, this.scene);
    const material = new StandardMaterial('ripple', this.scene);
    material.disableLighting = true;
    material.emissiveColor = Color3.White();
    mesh.material = material;
    mesh.position.set(at.x, 0.04, at.z);
    mesh.isPickable = false;
    this.#ripples.push({ mesh, age: 0 });
  }
}
