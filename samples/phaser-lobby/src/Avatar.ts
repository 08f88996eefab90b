import * as Phaser from 'phaser';

const RADIUS = 22;

/** One lobby member on the field: a colored disc with an initial and a name tag. */
export class Avatar extends Phaser.GameObjects.Container {
  readonly userId: string;
  /** Where the avatar is heading (its position once the current tween ends). */
  target: { x: number; y: number };
  readonly #disc: Phaser.GameObjects.Arc;
  readonly #initial: Phaser.GameObjects.Text;
  readonly #label: Phaser.GameObjects.Text;
  /** The ring shown while this player is heard in the lobby's call. */
  readonly #speaking: Phaser.GameObjects.Arc;

  constructor(scene: Phaser.Scene, userId: string, x: number, y: number, isSelf: boolean) {
    super(scene, x, y);
    this.userId = userId;
    this.target = { x, y };
    const shadow = scene.add.ellipse(0, RADIUS - 2, RADIUS * 1.8, RADIUS * 0.6, 0x000000, 0.25);
    this.#speaking = scene.add.circle(0, 0, RADIUS + 7).setStrokeStyle(4, 0x3ddc84, 1).setVisible(false);
    this.#disc = scene.add.circle(0, 0, RADIUS, 0xadb5bd);
    this.#disc.setStrokeStyle(isSelf ? 4 : 2, 0xffffff, isSelf ? 1 : 0.7);
    this.#initial = scene.add
      .text(0, 0, '', { fontFamily: 'system-ui, sans-serif', fontSize: '20px', fontStyle: 'bold', color: '#1b1e2b' })
      .setOrigin(0.5);
    this.#label = scene.add
      .text(0, RADIUS + 8, '', {
        fontFamily: 'system-ui, sans-serif',
        fontSize: '14px',
        color: '#ffffff',
        backgroundColor: 'rgba(0,0,0,0.45)',
        padding: { x: 6, y: 2 },
      })
      .setOrigin(0.5, 0);
    this.add([shadow, this.#speaking, this.#disc, this.#initial, this.#label]);
    this.setDepth(isSelf ? 2 : 1);
    scene.add.existing(this);
  }

  setLook(name: string, color: string, connected: boolean): this {
    this.#label.setText(name);
    this.#initial.setText(name.trim().charAt(0).toUpperCase());
    this.#disc.setFillStyle(Phaser.Display.Color.HexStringToColor(color).color);
    this.setAlpha(connected ? 1 : 0.45);
    return this;
  }

  /** Shows or hides the speaking ring. */
  setSpeaking(speaking: boolean): this {
    this.#speaking.setVisible(speaking);
    return this;
  }

  get speaking(): boolean {
    return this.#speaking.visible;
  }

  /** Glides to (x, y) at a steady speed; a new target replaces the one in flight. */
  walkTo(x: number, y: number): void {
    if (x === this.target.x && y === this.target.y) return;
    this.target = { x, y };
    this.scene.tweens.killTweensOf(this);
    const distance = Phaser.Math.Distance.Between(this.x, this.y, x, y);
    this.scene.tweens.add({
      targets: this,
      x,
      y,
      duration: Math.max(150, distance * 2.2),
      ease: 'Sine.easeInOut',
    });
  }
}
