import * as pc from 'playcanvas';
import { SocialLayer } from '@social-layer/playcanvas';
import type { GameSession, MemberTracker, SafeArea } from '@social-layer/ui';
import { Avatar } from './Avatar.ts';
import { ring } from './ring.ts';
import { clampToWorld, decodeAvatar, encodeAvatar } from './avatarState.ts';
import { GROUND, rayToGround, sceneToWorld, worldToScene } from './world.ts';


/** The camera's vertical angle of view on a wide screen, in degrees. */
const VERTICAL_FOV = 42;
/** Narrower than this (width / height) the field's width is what must fit (see #fitField). */
const FIT_ASPECT = 1.6;
/**
 * The 3D lobby: a PlayCanvas app with a ground, a camera looking down on it and one avatar per
 * lobby member, placed where their member state says. Clicking the ground walks your avatar
 * there (a ray from the camera through the click, met with the ground plane) and shares the
 * spot (`session.setState`). The Social Layer panels come from `@social-layer/playcanvas`.
 */
export class LobbyWorld {
  readonly app: pc.Application;
  readonly social: SocialLayer;
  readonly camera: pc.Entity;
  readonly #session: GameSession;
  readonly #canvas: HTMLCanvasElement;
  readonly #labels: HTMLElement;
  readonly #avatars: MemberTracker<Avatar>;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #ripple: pc.Entity;
  #rippleAge = Infinity;

  constructor(session: GameSession, canvas: HTMLCanvasElement) {
    this.#session = session;
    this.#canvas = canvas;

    this.app = new pc.Application(canvas, {
      mouse: new pc.Mouse(canvas),
      touch: 'ontouchstart' in window ? new pc.TouchDevice(canvas) : undefined,
      keyboard: new pc.Keyboard(window),
      graphicsDeviceOptions: { antialias: true, alpha: false },
    });
    // The canvas fills #game (CSS) and the drawing buffer follows its size.
    this.app.setCanvasFillMode(pc.FILLMODE_NONE);
    this.app.setCanvasResolution(pc.RESOLUTION_AUTO);
    // A lobby is mostly still: draw a frame only when something changed (see #redraw), which
    // leaves the CPU to voice and the page, and saves battery.
    this.app.autoRender = false;
    window.addEventListener('resize', this.#onResize);

    this.#labels = document.createElement('div');
    this.#labels.className = 'avatar-labels';
    canvas.parentElement?.append(this.#labels);

    this.camera = this.#buildScene();
    this.#ripple = this.#buildRipple();

    this.social = new SocialLayer(this.app, session.client, { pumpCallbacks: true });
    session.showPanels(this.social, {
      members: { memberColor: (id) => decodeAvatar(session.memberState(id)).color },
      // Panels step aside from a speaking player.
      locate: (id) => this.avatarBox(id),
    });
    // The hint line stays at the bottom of what no panel covers (the chat docks bottom-left).
    const hint = document.getElementById('hint');
    const overlay = this.social.overlay;
    // A finger has no V key: on a touch screen the hint names the bar's hold-to-talk button.
    if (hint && matchMedia('(pointer: coarse)').matches) hint.textContent = 'Tap the ground to walk · in voice, hold the talk button';
    if (hint && overlay) {
      const place = (area: SafeArea) => {
        // Squeezed beside open panels (a phone with its drawers open) the line would be a column: leave it out.
        hint.hidden = area.width < 240 || area.height < 80;
        hint.style.left = `${area.left + area.width / 2}px`;
        hint.style.bottom = `${area.bottom + 10}px`;
        hint.style.maxWidth = `${Math.max(0, area.width - 16)}px`;
      };
      this.#unsubscribe.push(overlay.onLayout(place));
      place(overlay.safeArea());
    }
    // One avatar per member, where their state says; ours walks where we last clicked.
    this.#avatars = session.trackMembers<Avatar>({
      create: (member) => {
        const { x, y } = decodeAvatar(member.state);
        const avatar = new Avatar(this.app, this.#labels, member.id, x, y, member.self);
        avatar.setSpeaking(session.voice.isSpeaking(member.id));
        return avatar;
      },
      update: (avatar, member) => {
        const state = decodeAvatar(member.state);
        avatar.walkTo(state.x, state.y);
        avatar.setLook(member.name, state.color, member.connected);
      },
      destroy: (avatar) => avatar.destroy(),
      synced: () => {
        this.social.members?.refresh();
        this.#redraw();
      },
    });
    this.#unsubscribe.push(
      session.voice.onSpeaking((userId, speaking) => {
        this.#avatars.items.get(userId)?.setSpeaking(speaking);
        this.#redraw();
      }),
    );

    this.app.mouse?.on(pc.EVENT_MOUSEDOWN, this.#onMouseDown, this);
    this.app.touch?.on(pc.EVENT_TOUCHSTART, this.#onTouchStart, this);
    this.app.on('update', this.#onUpdate, this);
    this.app.once('destroy', this.#onDestroy, this);

    this.app.start();
    this.#onResize();
  }

  /** Where a member's avatar stands now (mid-walk included), in world units, or undefined. */
  avatarPosition(userId: string): { x: number; y: number } | undefined {
    const avatar = this.#avatars.items.get(userId);
    return avatar ? { x: Math.round(avatar.position.x), y: Math.round(avatar.position.y) } : undefined;
  }

  /** Page (viewport) coordinates of a world position on the ground, to click there. */
  worldToClient(x: number, y: number): { x: number; y: number } {
    const screen = this.camera.camera!.worldToScreen(worldToScene(x, y));
    const rect = this.#canvas.getBoundingClientRect();
    return { x: rect.left + screen.x, y: rect.top + screen.y };
  }

  /**
   * A member's avatar with its name tag, on the page, roughly: around where it stands, 1.2 m to
   * each side and 3 m up (the tag floats above the head), from how long a metre is drawn there.
   */
  avatarBox(userId: string): { x: number; y: number; width: number; height: number } | undefined {
    const at = this.avatarPosition(userId);
    if (!at) return undefined;
    const foot = this.worldToClient(at.x, at.y);
    const metre = Math.abs(this.worldToClient(at.x + 64, at.y).x - foot.x);
    return { x: foot.x - 1.2 * metre, y: foot.y - 3 * metre, width: 2.4 * metre, height: 3.5 * metre };
  }

  /** Asks for the next frame to be drawn (the app renders on demand). */
  #redraw(): void {
    this.app.renderNextFrame = true;
  }

  /** Whether a member's avatar shows the speaking ring now. */
  isSpeakingShown(userId: string): boolean {
    return this.#avatars.items.get(userId)?.speaking ?? false;
  }

  /** Walks your avatar to a world position and tells the lobby. */
  moveSelfTo(x: number, y: number): void {
    const target = clampToWorld(x, y);
    this.#avatars.items.get(this.#session.userId)?.walkTo(target.x, target.y);
    this.#session.setState(encodeAvatar({ ...decodeAvatar(this.#session.state), ...target }));
  }

  /** A click or tap at canvas coordinates: a ray from the camera, met with the ground. */
  #pick(canvasX: number, canvasY: number): void {
    const camera = this.camera.camera!;
    const from = camera.screenToWorld(canvasX, canvasY, camera.nearClip);
    const to = camera.screenToWorld(canvasX, canvasY, camera.farClip);
    const hit = rayToGround(from, to);
    if (!hit) return;
    const spot = sceneToWorld(hit);
    this.#showRipple(clampToWorld(spot.x, spot.y));
    this.moveSelfTo(spot.x, spot.y);
  }

  #onMouseDown(event: pc.MouseEvent): void {
    // pc.Mouse listens on the window: a click on a panel over the canvas is not a pick.
    if (event.button !== pc.MOUSEBUTTON_LEFT || event.event.target !== this.#canvas) return;
    this.#pick(event.x, event.y);
  }

  #onTouchStart(event: pc.TouchEvent): void {
    const touch = event.changedTouches[0];
    if (!touch || event.event?.target !== this.#canvas) return;
    this.#pick(touch.x, touch.y);
  }

  #onUpdate(dt: number): void {
    const camera = this.camera.camera!;
    // The canvas's box as the device last measured it (on resize): no layout read every frame.
    const view = this.app.graphicsDevice.clientRect;
    this.#fitField(camera, view.width / Math.max(1, view.height));
    for (const avatar of this.#avatars.items.values()) {
      if (avatar.update(dt)) this.#redraw();
      avatar.placeLabel(camera, view.width);
    }
    if (this.#rippleAge < 0.45) {
      this.#redraw();
      this.#rippleAge += dt;
      const scale = 0.5 + this.#rippleAge * 4;
      this.#ripple.setLocalScale(scale, 1, scale);
      this.#ripple.enabled = this.#rippleAge < 0.45;
    }
  }

  /**
   * Keeps the whole field in view at any shape: on a wide screen the camera's vertical angle is
   * fixed; narrower than FIT_ASPECT (a phone held upright) its horizontal angle is, so the field's
   * sides, and the players standing there, are not cut off.
   */
  #fitField(camera: pc.CameraComponent, aspect: number): void {
    const narrow = aspect < FIT_ASPECT;
    const fov = narrow ? (2 * Math.atan(Math.tan((VERTICAL_FOV * Math.PI) / 360) * FIT_ASPECT) * 180) / Math.PI : VERTICAL_FOV;
    if (camera.horizontalFov === narrow && Math.abs(camera.fov - fov) < 1e-6) return;
    camera.horizontalFov = narrow;
    camera.fov = fov;
    this.#redraw();
  }

  readonly #onResize = (): void => {
    this.app.resizeCanvas();
    this.#redraw();
  };

  #onDestroy(): void {
    for (const off of this.#unsubscribe.splice(0)) off();
    window.removeEventListener('resize', this.#onResize);
    this.app.mouse?.off(pc.EVENT_MOUSEDOWN, this.#onMouseDown, this);
    this.app.touch?.off(pc.EVENT_TOUCHSTART, this.#onTouchStart, this);
    this.app.off('update', this.#onUpdate, this);
    this.#avatars.stop();
    this.#labels.remove();
  }

  /** Camera, lights, the ground with its grid and border. Returns the camera. */
  #buildScene(): pc.Entity {
    const { app } = this;
    app.scene.ambientLight = new pc.Color(0.38, 0.4, 0.5);

    const camera = new pc.Entity('camera');
    camera.addComponent('camera', { clearColor: new pc.Color(0.047, 0.055, 0.086), fov: VERTICAL_FOV, nearClip: 0.1, farClip: 100 });
    camera.setPosition(0, 12.5, 10.5);
    camera.lookAt(0, 0, 0.6);
    app.root.addChild(camera);

    const sun = new pc.Entity('sun');
    sun.addComponent('light', { type: 'directional', color: new pc.Color(1, 0.97, 0.9), intensity: 1.1, castShadows: false });
    sun.setEulerAngles(50, 30, 0);
    app.root.addChild(sun);

    const flat = (r: number, g: number, b: number, emissive = false) => {
      const m = new pc.StandardMaterial();
      m.diffuse.set(r, g, b);
      if (emissive) m.emissive.set(r, g, b);
      m.update();
      return m;
    };
    const box = (name: string, mat: pc.Material, x: number, z: number, sx: number, sy: number, sz: number) => {
      const e = new pc.Entity(name);
      e.addComponent('render', { type: 'box', material: mat, castShadows: false });
      e.setLocalPosition(x, sy / 2 - 0.0001, z);
      e.setLocalScale(sx, sy, sz);
      app.root.addChild(e);
    };
    box('ground', flat(0.114, 0.137, 0.208), 0, 0, GROUND.width, 0.02, GROUND.depth);
    box('ground-base', flat(0.07, 0.08, 0.12), 0, 0, GROUND.width + 0.6, 0.01, GROUND.depth + 0.6);
    const line = flat(0.16, 0.19, 0.27, true);
    for (let x = 1; x < GROUND.width; x += 1) box('grid', line, x - GROUND.width / 2, 0, 0.02, 0.025, GROUND.depth);
    for (let z = 1; z < GROUND.depth; z += 1) box('grid', line, 0, z - GROUND.depth / 2, GROUND.width, 0.025, 0.02);
    const border = flat(0.486, 0.612, 1, true);
    box('border', border, 0, -GROUND.depth / 2, GROUND.width, 0.08, 0.06);
    box('border', border, 0, GROUND.depth / 2, GROUND.width, 0.08, 0.06);
    box('border', border, -GROUND.width / 2, 0, 0.06, 0.08, GROUND.depth);
    box('border', border, GROUND.width / 2, 0, 0.06, 0.08, GROUND.depth);
    return camera;
  }

  #buildRipple(): pc.Entity {
    const m = new pc.StandardMaterial();
    m.diffuse.set(1, 1, 1);
    m.emissive.set(1, 1, 1);
    m.update();
    const ripple = ring(this.app, 'ripple', m, 0.3, 0.025, 0);
    ripple.enabled = false;
    this.app.root.addChild(ripple);
    return ripple;
  }

  #showRipple(at: { x: number; y: number }): void {
    this.#ripple.setPosition(worldToScene(at.x, at.y).add(new pc.Vec3(0, 0.03, 0)));
    this.#rippleAge = 0;
    this.#ripple.enabled = true;
  }
}
