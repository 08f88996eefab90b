/**
 * The parent's side of lobby/platformProcess.ts: starts the platform node in its own process and
 * wraps the IPC requests (childProcess.ts) `lobby-fanout`, `lobby-join` and `presence-fanout` use.
 */
import { Child } from '../childProcess.ts';

export class PlatformChild {
  private constructor(
    private readonly child: Child,
    /** The platform's HTTP origin. */
    readonly url: string,
    /** The application the bench's players sign in to. */
    readonly appId: string,
    /** The raw peer's `ws` server and its `POST /messages` route (rawFanoutPeer.ts), in the same process. */
    readonly rawPort: number,
    /** `lobby-join`'s raw peer (rawJoinPeer.ts), in the same process. */
    readonly rawJoinUrl: string,
  ) {}

  static async start(): Promise<PlatformChild> {
    const child = new Child(new URL('./platformProcess.ts', import.meta.url));
    const ready = await child.once('ready');
    return new PlatformChild(child, ready.url as string, ready.appId as string, ready.rawPort as number, ready.rawJoinUrl as string);
  }

  /** The child's CPU time so far (user + system), ms. */
  async cpuMs(): Promise<number> {
    return (await this.child.request({ type: 'cpu' })).ms as number;
  }

  /** Writes `frame` to every raw socket; resolves with the broadcast's start (stats.ts `nowMs`). */
  async raw(frame: string): Promise<{ startedAt: number }> {
    return { startedAt: (await this.child.request({ type: 'raw', frame })).startedAt as number };
  }

  /** `host` and each of `friends` become friends, written straight into the child's store. */
  async befriend(host: string, friends: string[]): Promise<void> {
    await this.child.request({ type: 'befriend', host, friends });
  }

  /** Starts a CPU profile of the child under BENCH_PROFILE; the returned function writes it. */
  async profile(name: string): Promise<() => Promise<void>> {
    await this.child.request({ type: 'profile-start', name });
    return async () => void (await this.child.request({ type: 'profile-stop' }));
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
