// The play field of the activity: the phaser-lobby sample's avatars (imported from that sample's
// package, not copied) walking where their owner clicked, with the speaking ring while heard in the
// lobby's call, and the Phaser plugin's lobby chat and member list over the canvas.
// Frames are drawn on demand: the loop sleeps when nothing moves. Drawing every frame in software
// rendering (headless, or a machine without a GPU) starved the audio worklets and voice lagged.
import * as Phaser from 'phaser';
import { SocialLayerPlugin } from '@social-layer/phaser';
import { Avatar } from '@social-layer/sample-phaser-lobby/src/Avatar.ts';
import { clampToWorld, decodeAvatar, encodeAvatar, WORLD } from '@social-layer/sample-phaser-lobby/src/avatarState.ts';
import type { ActivityLobby } from './ActivityLobby.ts';

/** How long the loop keeps drawing after the last change, so a change is surely on screen. */
const SETTLE_MS = 120;

export class ActivityScene extends Phaser.Scene {
  readonly #lobby: ActivityLobby;
  readonly #avatars = new Map<string, Avatar>();
  readonly #off: (() => void)[] = [];
  #awakeUntil = 0;
  /** Resolves once `create` has run. */
  readonly created: Promise<void>;
  #resolveCreated!: () => void;

  constructor(lobby: ActivityLobby) {
    super({ key: 'activity' });
    this.#lobby = lobby;
    this.created = new Promise((resolve) => (this.#resolveCreated = resolve));
  }

  create(): void {
    const lobby = this.#lobby;
    this.#drawField();
    // Phones start with the panels folded to their title bars, so the field stays visible.
    const narrow = this.game.canvas.parentElement!.clientWidth < 640;
    this.socialLayer.attach(lobby.client, { overlay: { collapsed: narrow } }).showLobby(lobby.lobbyId, {
      members: { memberColor: (id) => decodeAvatar(lobby.memberState(id)).color },
    });
    void lobby.client
      .getLobbyMessagesWithLimit(lobby.lobbyId, 50)
      .then((messages) => this.socialLayer.chat?.showMessages(messages))
      .catch((error: unknown) => console.warn('Could not load the chat history', error));
    this.#off.push(
      lobby.onMembersChanged(() => this.#sync()),
      lobby.voice.onSpeaking((userId, speaking) => {
        this.#avatars.get(userId)?.setSpeaking(speaking);
        this.requestFrames();
      }),
    );
    this.#sync();
    // A new player's random spot may be under a panel: they step out into the free part of the
    // field once the panels are laid out (checked on the first layouts, not on later resizes).
    const overlay = this.socialLayer.overlay;
    const until = performance.now() + 3000;
    requestAnimationFrame(() => this.#stepIntoView());
    if (overlay) this.#off.push(overlay.onLayout(() => performance.now() < until && this.#stepIntoView()));
    this.input.on(Phaser.Input.Events.POINTER_DOWN, (pointer: Phaser.Input.Pointer) => this.#walkSelf(pointer.worldX, pointer.worldY));
    // The scale manager applies a resize inside the loop, so a resize of the frame wakes it.
    const onResize = () => this.requestFrames();
    window.addEventListener('resize', onResize);
    this.#off.push(() => window.removeEventListener('resize', onResize));
    this.scale.on(Phaser.Scale.Events.RESIZE, () => {
      for (const avatar of this.#avatars.values()) avatar.setScale(this.#avatarScale());
      this.requestFrames();
    });
    this.events.once(Phaser.Scenes.Events.SHUTDOWN, () => this.#off.splice(0).forEach((off) => off()));
    this.requestFrames();
    this.#resolveCreated();
  }

  /** Wakes the loop and keeps it drawing a little while (tweens keep it awake until they end). */
  requestFrames(ms = SETTLE_MS): void {
    this.#awakeUntil = Math.max(this.#awakeUntil, performance.now() + ms);
    this.game.loop.wake(true);
  }

  override update(): void {
    if (this.tweens.getTweens().length > 0) return;
    if (performance.now() > this.#awakeUntil) this.game.loop.sleep();
  }

  /** Whether a member's avatar shows the speaking ring now. */
  isSpeakingShown(userId: string): boolean {
    return this.#avatars.get(userId)?.speaking ?? false;
  }

  /** Where a member's avatar is drawn now, in world units. */
  avatarPosition(userId: string): { x: number; y: number } | undefined {
    const avatar = this.#avatars.get(userId);
    return avatar && { x: Math.round(avatar.x), y: Math.round(avatar.y) };
  }

  #walkSelf(x: number, y: number): void {
    const target = clampToWorld(x, y);
    this.#avatars.get(this.#lobby.userId)?.walkTo(target.x, target.y);
    this.#lobby.setState(encodeAvatar({ ...decodeAvatar(this.#lobby.state), ...target }));
    this.requestFrames();
  }

  /** Walks this player's avatar into the overlay's safe area when a panel covers it. */
  #stepIntoView(): void {
    const overlay = this.socialLayer.overlay;
    const box = overlay?.element.getBoundingClientRect();
    const canvas = this.game.canvas.getBoundingClientRect();
    const area = overlay?.safeArea();
    if (!box || !area || canvas.width === 0) return;
    const scale = canvas.width / WORLD.width;
    const margin = 40;
    const left = (box.left + area.left - canvas.left) / scale + margin;
    const top = (box.top + area.top - canvas.top) / scale + margin;
    const right = (box.left + area.left + area.width - canvas.left) / scale - margin;
    const bottom = (box.top + area.top + area.height - canvas.top) / scale - margin;
    if (right - left < 40 || bottom - top < 40) return;
    const here = decodeAvatar(this.#lobby.state);
    if (here.x >= left && here.x <= right && here.y >= top && here.y <= bottom) return;
    const [a = 0, b = 0] = crypto.getRandomValues(new Uint32Array(2));
    this.#walkSelf(left + (a % Math.round(right - left)), top + (b % Math.round(bottom - top)));
  }

  /** One avatar per member, where their state says; gone members lose theirs. */
  #sync(): void {
    const seen = new Set<string>();
    for (const member of this.#lobby.members()) {
      seen.add(member.id);
      const state = decodeAvatar(member.state);
      let avatar = this.#avatars.get(member.id);
      if (!avatar) {
        avatar = new Avatar(this, member.id, state.x, state.y, member.self).setSpeaking(this.#lobby.voice.isSpeaking(member.id));
        avatar.setScale(this.#avatarScale());
        this.#avatars.set(member.id, avatar);
      }
      avatar.walkTo(state.x, state.y);
      avatar.setLook(member.name, state.color, member.connected);
    }
    for (const [id, avatar] of this.#avatars) {
      if (seen.has(id)) continue;
      this.#avatars.delete(id);
      avatar.destroy();
    }
    this.socialLayer.members?.refresh();
    this.requestFrames();
  }

  /**
   * Avatars grow when the field is drawn small (a phone's frame shrinks the 1024-wide world to
   * about a third): their names stay readable, about 10 px on screen at the least.
   */
  #avatarScale(): number {
    const shown = this.scale.displaySize.width / WORLD.width;
    return shown > 0 ? Math.min(2.2, Math.max(1, 0.7 / shown)) : 1;
  }

  #drawField(): void {
    const grid = this.add.graphics();
    grid.fillStyle(0x1d2335, 1).fillRoundedRect(8, 8, WORLD.width - 16, WORLD.height - 16, 18);
    grid.lineStyle(1, 0xffffff, 0.05);
    for (let x = 64; x < WORLD.width; x += 64) grid.lineBetween(x, 8, x, WORLD.height - 8);
    for (let y = 64; y < WORLD.height; y += 64) grid.lineBetween(8, y, WORLD.width - 8, y);
    grid.lineStyle(2, 0x5865f2, 0.45).strokeRoundedRect(8, 8, WORLD.width - 16, WORLD.height - 16, 18);
  }
}

/** The Phaser game around the scene: fitted to its parent, the plugin registered. */
export function startGame(parent: string, scene: ActivityScene): Phaser.Game {
  return new Phaser.Game({
    type: Phaser.AUTO,
    parent,
    width: WORLD.width,
    height: WORLD.height,
    backgroundColor: '#0c0e16',
    scale: { mode: Phaser.Scale.FIT, autoCenter: Phaser.Scale.CENTER_BOTH },
    plugins: { scene: [SocialLayerPlugin.sceneConfig()] },
    scene: [scene],
  });
}
