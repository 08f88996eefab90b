import * as Phaser from 'phaser';
import type { GameSession, MemberTracker } from '@social-layer/ui';
import { Avatar } from './Avatar.ts';
import { clampToWorld, decodeAvatar, encodeAvatar, WORLD } from './avatarState.ts';

/** How long the loop keeps drawing after the last change, so a change is surely on screen. */
const SETTLE_MS = 120;
/** Drawn smaller than this (canvas px per world unit, a phone), avatars and the hint grow to stay readable. */
const READABLE_SCALE = 0.8;
/** The most they grow. */
const MAX_GROW = 2.2;

/**
 * The play field. Every member of the lobby is an avatar placed where their member state says;
 * clicking walks your own avatar there and shares the spot (`session.setState`), which the
 * others receive as a member update. The social side is the session's and the plugin's panels.
 *
 * Frames are drawn on demand: the loop sleeps while nothing moves and every change asks for
 * frames (`requestFrames`). Drawing 60 frames a second in software rendering (headless, or a
 * machine without a GPU) took the page's main thread from the voice call: on a loaded machine
 * the call's 20 ms clock ran a few ticks a second and speech played seconds late.
 */
export class LobbyScene extends Phaser.Scene {
  readonly #session: GameSession;
  #avatars: MemberTracker<Avatar> | undefined;
  readonly #unsubscribe: (() => void)[] = [];
  #hint: Phaser.GameObjects.Text | undefined;
  #awakeUntil = 0;
  /** How much larger than their world size avatars and the hint are drawn (see #fitToScreen). */
  #grow = 1;
  /** Resolves once `create` has run: the test hook waits on it. */
  readonly created: Promise<void>;
  #resolveCreated!: () => void;

  constructor(session: GameSession) {
    super({ key: 'lobby' });
    this.#session = session;
    this.created = new Promise((resolve) => (this.#resolveCreated = resolve));
  }

  create(): void {
    const session = this.#session;
    this.#drawField();
    session.showPanels(this.socialLayer.attach(session.client), {
      members: { memberColor: (id) => decodeAvatar(session.memberState(id)).color },
      // Panels step aside from a speaking player's avatar (disc, ring and name tag).
      locate: (id) => this.avatarBox(id),
    });
    // One avatar per member, where their state says; ours walks where we last clicked.
    this.#avatars = session.trackMembers<Avatar>({
      create: (member) => {
        const { x, y } = decodeAvatar(member.state);
        return new Avatar(this, member.id, x, y, member.self).setSpeaking(session.voice.isSpeaking(member.id)).setScale(this.#grow);
      },
      update: (avatar, member) => {
        const state = decodeAvatar(member.state);
        avatar.walkTo(state.x, state.y);
        avatar.setLook(member.name, state.color, member.connected);
      },
      destroy: (avatar) => avatar.destroy(),
      synced: () => {
        this.socialLayer.members?.refresh();
        this.requestFrames();
      },
    });
    this.#unsubscribe.push(
      session.voice.onSpeaking((userId, speaking) => {
        this.#avatar(userId)?.setSpeaking(speaking);
        this.requestFrames();
      }),
    );
    // The hint stays where no panel covers the field (the overlay's safe area), at any size.
    const overlay = this.socialLayer.overlay;
    if (overlay) this.#unsubscribe.push(overlay.onLayout(() => this.#placeHint()));
    this.#placeHint();
    this.input.on(Phaser.Input.Events.POINTER_DOWN, this.#onPointerDown);
    // The scale manager applies a resize inside the loop, so a resize of the page wakes it.
    const onResize = () => {
      this.#fitToScreen();
      this.requestFrames();
    };
    window.addEventListener('resize', onResize);
    this.scale.on(Phaser.Scale.Events.RESIZE, onResize);
    this.#unsubscribe.push(() => {
      window.removeEventListener('resize', onResize);
      this.scale.off(Phaser.Scale.Events.RESIZE, onResize);
    });
    this.events.once(Phaser.Scenes.Events.SHUTDOWN, this.#onShutdown);
    this.#fitToScreen();
    this.requestFrames();
    this.#resolveCreated();
  }

  /** Wakes the loop and keeps it drawing a little while (running tweens keep it awake until they end). */
  requestFrames(ms = SETTLE_MS): void {
    this.#awakeUntil = Math.max(this.#awakeUntil, performance.now() + ms);
    this.game.loop.wake(true);
  }

  override update(): void {
    if (this.tweens.getTweens().length > 0) return;
    if (performance.now() > this.#awakeUntil) this.game.loop.sleep();
  }

  /** Whether the loop is drawing frames now (it sleeps while nothing moves). */
  get drawing(): boolean {
    return this.game.loop.running;
  }

  /** Where a member's avatar is drawn now (mid-tween included), or undefined. */
  avatarPosition(userId: string): { x: number; y: number } | undefined {
    const avatar = this.#avatar(userId);
    return avatar ? { x: Math.round(avatar.x), y: Math.round(avatar.y) } : undefined;
  }

  /** Whether a member's avatar shows the speaking ring now. */
  isSpeakingShown(userId: string): boolean {
    return this.#avatar(userId)?.speaking ?? false;
  }

  /** Walks your avatar to a world position and tells the lobby. */
  moveSelfTo(x: number, y: number): void {
    const target = clampToWorld(x, y);
    this.#avatar(this.#session.userId)?.walkTo(target.x, target.y);
    this.#session.setState(encodeAvatar({ ...decodeAvatar(this.#session.state), ...target }));
    this.requestFrames();
  }

  readonly #onPointerDown = (pointer: Phaser.Input.Pointer): void => {
    this.#ripple(pointer.worldX, pointer.worldY);
    this.moveSelfTo(pointer.worldX, pointer.worldY);
  };

  readonly #onShutdown = (): void => {
    for (const off of this.#unsubscribe.splice(0)) off();
    this.input.off(Phaser.Input.Events.POINTER_DOWN, this.#onPointerDown);
    this.#avatars?.stop();
  };

  /** The hint's box on the page, for tests. */
  hintBox(): { x: number; y: number; width: number; height: number } | undefined {
    const hint = this.#hint;
    if (!hint) return undefined;
    const rect = this.game.canvas.getBoundingClientRect();
    const scale = rect.width / WORLD.width;
    const bounds = hint.getBounds();
    return { x: rect.left + bounds.x * scale, y: rect.top + bounds.y * scale, width: bounds.width * scale, height: bounds.height * scale };
  }

  /** A member's avatar with its ring and name tag, on the page. */
  avatarBox(userId: string): { x: number; y: number; width: number; height: number } | undefined {
    const avatar = this.#avatar(userId);
    if (!avatar) return undefined;
    const rect = this.game.canvas.getBoundingClientRect();
    const scale = rect.width / WORLD.width;
    const size = scale * this.#grow;
    return { x: rect.left + avatar.x * scale - 70 * size, y: rect.top + avatar.y * scale - 32 * size, width: 140 * size, height: 84 * size };
  }

  /**
   * The field is scaled to fit the canvas (FIT), so on a phone a 14 px name is drawn 5 px high:
   * below READABLE_SCALE avatars and the hint are drawn larger, up to MAX_GROW, to stay readable.
   */
  #fitToScreen(): void {
    const drawn = this.game.canvas.getBoundingClientRect().width / WORLD.width;
    const grow = drawn > 0 ? Phaser.Math.Clamp(READABLE_SCALE / drawn, 1, MAX_GROW) : 1;
    if (grow === this.#grow) return;
    this.#grow = grow;
    for (const avatar of this.#avatars?.items.values() ?? []) avatar.setScale(grow);
    this.#hint?.setScale(grow);
    this.#placeHint();
  }

  /** Centers the hint at the top of the safe area, in world units (the canvas is scaled to fit). */
  #placeHint(): void {
    const area = this.#session.safeArea();
    const overlay = this.socialLayer.overlay?.element.getBoundingClientRect();
    const canvas = this.game.canvas.getBoundingClientRect();
    if (!this.#hint || !area || !overlay || canvas.width === 0) return;
    const scale = canvas.width / WORLD.width;
    const toWorldX = (px: number) => (overlay.left + px - canvas.left) / scale;
    const top = (overlay.top + area.top - canvas.top) / scale;
    const maxWidth = Math.max(120, area.width / scale - 16) / this.#grow;
    this.#hint.setWordWrapWidth(maxWidth).setPosition(toWorldX(area.left + area.width / 2), Math.min(WORLD.height - 60, Math.max(20, top + 8)));
    this.requestFrames();
  }

  #avatar(userId: string): Avatar | undefined {
    return this.#avatars?.items.get(userId);
  }

  #drawField(): void {
    const grid = this.add.graphics();
    grid.fillStyle(0x1d2335, 1).fillRoundedRect(8, 8, WORLD.width - 16, WORLD.height - 16, 18);
    grid.lineStyle(1, 0xffffff, 0.05);
    for (let x = 64; x < WORLD.width; x += 64) grid.lineBetween(x, 8, x, WORLD.height - 8);
    for (let y = 64; y < WORLD.height; y += 64) grid.lineBetween(8, y, WORLD.width - 8, y);
    grid.lineStyle(2, 0x7c9cff, 0.35).strokeRoundedRect(8, 8, WORLD.width - 16, WORLD.height - 16, 18);
    this.#hint = this.add
      .text(WORLD.width / 2, 28, 'Click anywhere to walk · share the URL to invite a friend', {
        fontFamily: 'system-ui, sans-serif',
        fontSize: '15px',
        color: '#9aa1b8',
        align: 'center',
      })
      .setOrigin(0.5, 0);
  }

  #ripple(x: number, y: number): void {
    const ring = this.add.circle(x, y, 10).setStrokeStyle(2, 0xffffff, 0.8);
    this.tweens.add({ targets: ring, scale: 2.4, alpha: 0, duration: 450, onComplete: () => ring.destroy() });
    this.requestFrames();
  }
}
