import type { Logger } from '../log/Logger.ts';
import type { Store } from '../storage/Store.ts';
import type { Clock } from './clock.ts';
import type { CommerceEvents } from './CommerceEvents.ts';
import type { SubscriptionMachine } from './subscriptionMachine.ts';
import { SubscriptionStatus } from './wire.ts';

export interface SchedulerOptions {
  /** How often a node looks for due subscriptions. Default 30 s. */
  intervalMs?: number;
  /** Subscriptions read per query. Default 100. */
  batch?: number;
  /**
   * Fault injection for the restart test: called inside each transition's transaction before it
   * commits and again after it committed and published; a throw stops the run there, as a
   * killed process would.
   */
  hooks?: { inTransaction?(n: number): void; afterCommit?(n: number): void };
}

/**
 * Runs renewals and period ends (issue 14). Its state is only the subscriptions' rows, so a
 * restarted node picks up whatever came due while it was down, and a run that died part-way
 * leaves each subscription either changed (with its events) or untouched. Every node runs one;
 * each transition claims its subscription (PostgreSQL advisory lock, SQLite's single writer)
 * and re-checks that it is still due inside the transaction, so across nodes and retries each
 * period is renewed or ended exactly once. The clock is injected.
 */
export class SubscriptionScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private transitions = 0;

  constructor(
    private readonly store: Store,
    private readonly machine: SubscriptionMachine,
    private readonly events: CommerceEvents,
    private readonly clock: Clock,
    private readonly log: Logger | null,
    private readonly options: SchedulerOptions = {},
  ) {}

  /** Runs at once (whatever came due while the node was down), then every interval. */
  start(): void {
    if (this.timer) return;
    const run = () => {
      this.tick().catch((err: unknown) => this.log?.error({ err }, 'subscription scheduler run failed'));
    };
    this.timer = setInterval(run, this.options.intervalMs ?? 30_000);
    this.timer.unref();
    run();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => 0);
  }

  /** One run: every subscription due at the clock's now, until none is left. Returns the transitions made. */
  tick(): Promise<number> {
    // One run at a time per node; a second call waits for the running one.
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(): Promise<number> {
    const now = this.clock.now();
    let made = 0;
    for (;;) {
      const ids = await this.store.subscriptions.due(now, [SubscriptionStatus.Active, SubscriptionStatus.Ending], this.options.batch ?? 100);
      let progressed = 0;
      for (const id of ids) if (await this.step(id, now)) progressed++;
      made += progressed;
      // Nothing changed in this pass: the rest are held by another node (or none are due).
      if (progressed === 0) return made;
    }
  }

  private async step(id: string, now: number): Promise<boolean> {
    const dispatches = await this.store.database.db.transaction().execute(async (tx) => {
      const s = await this.store.subscriptions.claim(tx, id);
      if (!s) return null;
      const trigger = s.status === SubscriptionStatus.Active ? ({ kind: 'renew' } as const) : ({ kind: 'end' } as const);
      const r = await this.machine.transition(tx, s, trigger, now);
      if (!r) return null;
      this.options.hooks?.inTransaction?.(this.transitions + 1);
      return r.dispatches;
    });
    if (!dispatches) return false;
    this.transitions++;
    await this.events.publish(dispatches);
    this.options.hooks?.afterCommit?.(this.transitions);
    return true;
  }
}
