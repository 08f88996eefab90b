import '@babylonjs/core/Culling/ray.js'; // adds scene.pick (Babylon's side-effect import)
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera.js';
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
import type { ClientEvents } from '@social-layer/client';
import { SocialLayerComponent } from '@social-layer/babylon';
import { Avatar } from './Avatar.ts';
import { clampToWorld, decodeAvatarState, encodeAvatarState, savePosition, type AvatarState } from './avatarState.ts';
import { lobbyUrl } from './deepLink.ts';
import { GROUND, groundToWorld, worldToGround } from './ground.ts';
import { LatestOnly } from './LatestOnly.ts';
import { keepPresenceInStep } from './richPresence.ts';
import type { LobbySession } from './session.ts';

const HISTORY_LIMIT = 50;
const LOBBY_EVENTS = ['lobbyUpdated', 'lobbyMemberAdded', 'lobbyMemberUpdated', 'lobbyMemberRemoved'] as const;

/**
 * The play field: a Babylon.js scene with a ground plane where every member of the lobby is an
 * avatar placed where their member metadata says. Clicking the ground walks your avatar there
 * and shares the new spot as member metadata, which the others receive as
 * `lobbyMemberUpdated`. The Social Layer panels come from `SocialLayerComponent`, which also
 * pumps the client's queued events before every frame and frees everything with the scene.
 */
export class LobbyWorld {
  readonly engine: Engine;
  readonly scene: Scene;
  readonly camera: ArcRotateCamera;
  readonly social: SocialLayerComponent;
  readonly #canvas: HTMLCanvasElement;
  readonly #session: LobbySession;
  readonly #ground: Mesh;
  readonly #avatars = new Map<string, Avatar>();
  readonly #speaking = new Set<string>();
  readonly #unsubscribe: (() => void)[] = [];
  readonly #publish: LatestOnly<AvatarState>;
  readonly #ripples: { mesh: Mesh; age: number }[] = [];
  #me: AvatarState;

  constructor(canvas: HTMLCanvasElement, session: LobbySession) {
    this.#canvas = canvas;
    this.#session = session;
    this.#me = { ...session.avatar };
    // Member metadata is replaced as a whole: createOrJoinLobbyWithMetadata on a lobby we are
    // already in updates our metadata and fans it out to the other members.
    this.#publish = new LatestOnly(
      (state) => session.client.createOrJoinLobbyWithMetadata(session.secret, {}, encodeAvatarState(state)),
      (error) => console.warn('Could not share the avatar position', error),
    );

    this.engine = new Engine(canvas, true, { stencil: true }, true);
    this.scene = new Scene(this.engine);
    this.scene.clearColor = Color4.FromHexString('#12151fff');
    // A fixed camera looking down at the field: clicks are moves, not camera drags.
    this.camera = new ArcRotateCamera('camera', -Math.PI / 2, 0.8, 30.5, new Vector3(0, 0, -1.2), this.scene);
    const light = new HemisphericLight('light', new Vector3(0.3, 1, -0.4), this.scene);
    light.groundColor = new Color3(0.25, 0.27, 0.35);
    this.#ground = this.#drawField();

    const { client, lobbyId } = session;
    this.social = new SocialLayerComponent(this.scene, client, { pumpCallbacks: true })
      .showLobby(lobbyId, { members: { memberColor: (memberId) => this.#stateOf(memberId)?.color } })
      // Friends with presence and Invite buttons; an accepted invite takes the player to that lobby.
      .showFriends({ toasts: { onJoin: (secret) => location.assign(lobbyUrl(secret)) } });
    this.#unsubscribe.push(keepPresenceInStep(session));
    client
      .getLobbyMessagesWithLimit(lobbyId, HISTORY_LIMIT)
      .then((messages) => this.social.chat?.showMessages(messages))
      .catch((error: unknown) => console.warn('Could not load the chat history', error));

    const onLobbyChange: ClientEvents['lobbyUpdated'] = (changedLobbyId) => {
      if (changedLobbyId === lobbyId) this.#syncAvatars();
    };
    for (const event of LOBBY_EVENTS) this.#unsubscribe.push(client.on(event, onLobbyChange));
    this.#unsubscribe.push(client.on('userUpdated', () => this.#syncAvatars()));
    this.scene.onPointerObservable.add(this.#onPointer);
    this.scene.onBeforeRenderObservable.add(this.#onBeforeRender);
    // The game's own listeners go with the scene, as the component's do.
    this.scene.onDisposeObservable.addOnce(() => {
      for (const off of this.#unsubscribe.splice(0)) off();
      this.#avatars.clear();
    });
    window.addEventListener('resize', this.#onResize);

    this.#syncAvatars();
    // Frames are drawn only when something changed or moves: a software-rendered page drawing
    // every frame starves the audio worklets (voice lagged by seconds under load). Idle frames
    // still pump the client, which the component otherwise does before each render.
    this.scene.onPointerObservable.add(() => this.invalidate());
    this.engine.runRenderLoop(() => {
      if (this.#dirty || this.#ripples.length > 0 || [...this.#avatars.values()].some((a) => a.moving)) {
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
    const avatar = this.#avatars.get(userId);
    return avatar ? { x: Math.round(avatar.x), y: Math.round(avatar.y) } : undefined;
  }

  /** Lights a member's avatar while they are heard in the call (speakingStatusChanged). */
  setSpeaking(userId: string, speaking: boolean): void {
    if (speaking) this.#speaking.add(userId);
    else this.#speaking.delete(userId);
    this.#avatars.get(userId)?.setSpeaking(speaking);
    this.invalidate();
  }

  clearSpeaking(): void {
    for (const userId of [...this.#speaking]) this.setSpeaking(userId, false);
  }

  isSpeakingShown(userId: string): boolean {
    return this.#avatars.get(userId)?.speaking ?? false;
  }

  /** Walks your avatar to a world position and tells the lobby. */
  moveSelfTo(x: number, y: number): void {
    const target = clampToWorld(x, y);
    this.#me = { ...this.#me, ...target };
    this.#avatars.get(this.#session.userId)?.walkTo(target.x, target.y);
    savePosition(this.#session.secret, target);
    this.#publish.push(this.#me);
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

  readonly #onBeforeRender = (): void => {
    const elapsed = Math.min(this.engine.getDeltaTime(), 100);
    for (const avatar of this.#avatars.values()) avatar.update(elapsed);
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

  #stateOf(memberId: string): AvatarState | undefined {
    const member = this.#session.client.getLobbyHandle(this.#session.lobbyId)?.getLobbyMemberHandle(memberId);
    return member ? decodeAvatarState(member.metadata()) : undefined;
  }

  /** Makes the avatars match the lobby's members as the client knows them now. */
  #syncAvatars(): void {
    this.invalidate();
    const { client, lobbyId, userId } = this.#session;
    const members = client.getLobbyHandle(lobbyId)?.lobbyMembers() ?? [];
    const seen = new Set<string>();
    for (const member of members) {
      seen.add(member.id);
      const isSelf = member.id === userId;
      // Our own position is whatever we last clicked; the echo of an older update must not
      // pull the avatar back.
      const state = isSelf ? this.#me : decodeAvatarState(member.metadata());
      let avatar = this.#avatars.get(member.id);
      if (!avatar) {
        avatar = new Avatar(this.scene, member.id, state.x, state.y, isSelf);
        avatar.setSpeaking(this.#speaking.has(member.id));
        this.#avatars.set(member.id, avatar);
      } else {
        avatar.walkTo(state.x, state.y);
      }
      const user = member.user();
      avatar.setLook(user?.displayName || user?.username || 'Player', state.color, member.connected());
    }
    for (const [id, avatar] of this.#avatars) {
      if (seen.has(id)) continue;
      avatar.dispose();
      this.#avatars.delete(id);
    }
    this.social.members?.refresh();
  }

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
