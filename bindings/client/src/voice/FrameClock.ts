const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * Calls `tick` once per period on average, correcting for timer drift: a late timer runs the
 * ticks it missed (at most `maxCatchUp` at once) and a longer stall is skipped, not replayed.
 */
export class FrameClock {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private next = 0;
  private running = false;

  constructor(
    private readonly tick: () => void,
    private readonly periodMs = 20,
    private readonly maxCatchUp = 5,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.next = now() + this.periodMs;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.timer = setTimeout(this.run, Math.max(0, this.next - now()));
  }

  private readonly run = (): void => {
    this.timer = undefined;
    if (!this.running) return;
    const t = now();
    let ran = 0;
    while (this.next <= t && ran < this.maxCatchUp && this.running) {
      this.tick();
      this.next += this.periodMs;
      ran++;
    }
    if (!this.running) return;
    if (t - this.next > this.periodMs * this.maxCatchUp) this.next = t + this.periodMs;
    this.schedule();
  };
}
