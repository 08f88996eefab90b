/**
 * Watches game processes: `onExit(pid)` fires once a watched pid no longer exists. Polling with
 * signal 0 works for any process of the same user on every platform Node runs on; the interval
 * bounds how late a crashed game's presence is cleared.
 */
export class PidWatch {
  private readonly watched = new Set<number>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly onExit: (pid: number) => void,
    private readonly intervalMs = 1000,
  ) {}

  watch(pid: number): void {
    this.watched.add(pid);
    this.timer ??= setInterval(() => this.poll(), this.intervalMs);
    this.timer.unref?.();
  }

  unwatch(pid: number): void {
    this.watched.delete(pid);
    if (this.watched.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private poll(): void {
    for (const pid of [...this.watched]) {
      if (isAlive(pid)) continue;
      this.watched.delete(pid);
      this.onExit(pid);
    }
    if (this.watched.size === 0) this.stop();
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
