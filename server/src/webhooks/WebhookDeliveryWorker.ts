import { randomBytes } from 'node:crypto';
import type { WebhookEventsTable } from '../storage/schema.ts';
import { WebhookStatus, type WebhookEventRepo, type WebhookSettingsTable } from '../storage/WebhookEventRepo.ts';
import { eventBody } from './payload.ts';
import { checkDestination, parseWebhookUrl, SafeFetchError, safePost, type SafeFetchOptions } from './safeFetch.ts';
import { WebhookSigner } from './signing.ts';

export interface WebhookDeliveryOptions {
  /** Development mode: http:// and loopback receivers allowed. Default false. */
  allowLoopback?: boolean;
  /** DNS for the SSRF check (tests inject one). */
  resolve?: SafeFetchOptions['resolve'];
  /** How often an idle worker looks for due events (a local record() also wakes it). Default 250 ms. */
  pollIntervalMs?: number;
  /**
   * How long a claimed application stays this node's without renewal. Default 30 s; at least
   * three send timeouts, since a lease must outlast any send started under it.
   */
  leaseMs?: number;
  /** Events read per query. Default 100. */
  batchSize?: number;
  /** Applications delivered to at once by this node. Default 16. */
  concurrency?: number;
  /**
   * Requests one application may have in flight at once. Default 1: one at a time, so a receiver
   * that answers gets events in the order they were recorded. More hides the receiver's round
   * trip (a receiver 10 ms away gets at most ~100 events/s one at a time) at the cost of order:
   * sends still start in id order, but the receiver may handle them concurrently, and after a
   * failure the events already sent behind it may arrive before its retry.
   */
  maxInFlight?: number;
  /** Backoff after the n-th consecutive failure: min(max, base * 2^(n-1)), then jittered to 50-100%. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A failure streak this long disables the URL (status 3). Default 24 h plus one maximum backoff. */
  retryWindowMs?: number;
  /** The receiver's time to answer. Default 3 s. */
  timeoutMs?: number;
  /** Delivered and skipped events older than this are purged (checked hourly). Default 7 days. */
  retentionMs?: number;
  /**
   * How long a node keeps an application whose queue it has just emptied, waiting for the next
   * event (a local record wakes it at once; events recorded on other nodes are seen at the end).
   * Saves a claim and a key read per event when events trickle in. Default 100 ms.
   */
  lingerMs?: number;
}

const HOUR = 3_600_000;

type SendOutcome = { ok: true; status: number; latencyMs: number } | { ok: false; status: number; error: string; latencyMs: number };

/** The logger calls the worker makes (pino's signature). */
export interface WebhookLog {
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

/**
 * Sends the outbox (issue 15). Each application's queue is delivered by one node at a time: the
 * node claims the application (a lease on its webhook_settings row, taken with FOR UPDATE SKIP
 * LOCKED on PostgreSQL), then sends its events one by one in id order, marking each delivered
 * right after its 2xx. A failure stops that application's queue until the backoff has passed,
 * so events reach a receiver that answers in the order they were recorded; a failure streak
 * longer than the retry window disables the URL (status 3, last error kept) and leaves the
 * backlog in place. Nothing is held only in memory: after a crash the lease expires and the
 * queue resumes from the first event without a recorded 2xx (at least once; the event `id`
 * lets receivers drop the duplicate of an event whose 2xx we never recorded).
 */
export class WebhookDeliveryWorker {
  /** This process's lease owner name; a restarted node is a new owner. */
  readonly nodeId = randomBytes(8).toString('hex');
  private readonly signer = new WebhookSigner();
  private readonly opts: Required<Omit<WebhookDeliveryOptions, 'resolve'>> & Pick<WebhookDeliveryOptions, 'resolve'>;
  private readonly active = new Map<string, Promise<void>>();
  /** Loops lingering on an empty queue, by application: calling it wakes the loop. */
  private readonly waiting = new Map<string, () => void>();
  /** Signing keys by application (keys never change once made). */
  private readonly keys = new Map<string, ReturnType<WebhookSigner['key']>>();
  private timer: NodeJS.Timeout | null = null;
  private timerDue = Infinity;
  private ticking = false;
  private again = false;
  private closing = false;
  private lastPurge = 0;

  constructor(private readonly repo: WebhookEventRepo, private readonly log: WebhookLog, options: WebhookDeliveryOptions = {}) {
    const backoffMaxMs = options.backoffMaxMs ?? 15 * 60_000;
    this.opts = {
      allowLoopback: options.allowLoopback ?? false,
      resolve: options.resolve,
      pollIntervalMs: options.pollIntervalMs ?? 250,
      leaseMs: Math.max(options.leaseMs ?? 30_000, 3 * (options.timeoutMs ?? 3000)),
      batchSize: options.batchSize ?? 100,
      concurrency: options.concurrency ?? 16,
      maxInFlight: Math.max(1, Math.floor(options.maxInFlight ?? 1)),
      backoffBaseMs: options.backoffBaseMs ?? 1000,
      backoffMaxMs,
      retryWindowMs: options.retryWindowMs ?? 24 * HOUR + backoffMaxMs,
      timeoutMs: options.timeoutMs ?? 3000,
      retentionMs: options.retentionMs ?? 7 * 24 * HOUR,
      lingerMs: options.lingerMs ?? 100,
    };
  }

  async start(): Promise<void> {
    // SQLite has one writer, this process: any lease in the file belonged to a process that died.
    if (this.repo.dialect === 'sqlite') await this.repo.releaseAllLeases();
    this.repo.onRecorded = (applicationId) => {
      // The application's queue is being delivered here: tell its loop, no claim needed.
      const waiting = this.waiting.get(applicationId);
      if (waiting) waiting();
      else if (!this.active.has(applicationId)) this.wake(5);
    };
    this.wake(0);
  }

  /**
   * Looks for due work after `delayMs`; a sooner call moves the look forward, a later one never
   * pushes it back (records arriving every millisecond once kept postponing it indefinitely).
   */
  wake(delayMs = 0): void {
    if (this.closing) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    const due = Date.now() + delayMs;
    if (this.timer && due >= this.timerDue) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.timerDue = Infinity;
    if (this.closing) return;
    this.ticking = true;
    this.again = false;
    try {
      const free = this.opts.concurrency - this.active.size;
      if (free > 0) {
        const now = Date.now();
        const claimed = await this.repo.claimApplications(this.nodeId, now, now + this.opts.leaseMs, free, [...this.active.keys()]);
        for (const settings of claimed) {
          const run = this.deliverApplication(settings)
            .catch((err) => this.log.error({ err, applicationId: settings.application_id }, 'webhook delivery failed'))
            .finally(() => {
              this.active.delete(settings.application_id);
              this.wake(0);
            });
          this.active.set(settings.application_id, run);
        }
      }
      if (Date.now() - this.lastPurge > HOUR) {
        this.lastPurge = Date.now();
        await this.repo.purgeDone(Date.now() - this.opts.retentionMs);
      }
    } catch (err) {
      if (!this.closing) this.log.error({ err }, 'webhook claim failed');
    } finally {
      this.ticking = false;
      if (!this.closing) this.wake(this.again ? 0 : this.opts.pollIntervalMs);
    }
  }

  /** One application's queue, in order, until it is empty, a send fails, or the lease is lost. */
  private async deliverApplication(claimed: WebhookSettingsTable): Promise<void> {
    const appId = claimed.application_id;
    let leaseUntil = Number(claimed.lease_until);
    let lost = false;
    let failing = claimed.failing_since !== null;
    // Renewed on a timer as well as before each send, so slow storage between sends cannot let
    // the lease run out under a node that is still working.
    const renewer = setInterval(() => {
      const until = Date.now() + this.opts.leaseMs;
      this.repo.renewLease(appId, this.nodeId, until).then(
        (ok) => {
          if (ok) leaseUntil = Math.max(leaseUntil, until);
          else lost = true;
        },
        () => {},
      );
    }, this.opts.leaseMs / 4);
    renewer.unref();
    let key = this.keys.get(appId);
    if (!key) {
      key = this.signer.key(appId, (await this.repo.keyPair(appId)).private_key);
      this.keys.set(appId, key);
    }
    let lingerUntil = 0;
    // 2xx answers not yet recorded, and the recordings in flight. Neither the next send nor the
    // next read of the queue waits for those commits: the read leaves out the events whose 2xx is
    // being recorded (else it would see them as pending and send them again).
    let answered: { id: string; status: number; latencyMs: number }[] = [];
    const recordingIds = new Set<string>();
    let recording: Promise<void> = Promise.resolve();
    let stamp = 0;
    const record = () => {
      const group = answered;
      if (group.length === 0) return recording;
      // The stamp of the batch these answers belong to (a group never spans two batches).
      const groupStamp = stamp;
      answered = [];
      for (const g of group) recordingIds.add(g.id);
      // One commit after another, each whatever became of the previous one.
      recording = recording
        .catch(() => {})
        .then(() => this.repo.markDeliveredMany(group, groupStamp))
        // Recorded (no longer pending) or failed (pending again, sent again: at least once).
        .finally(() => {
          for (const g of group) recordingIds.delete(g.id);
        });
      return recording;
    };
    try {
      while (!this.closing) {
        // The previous batch's answers go to be recorded under its stamp; then a new stamp
        // (strictly increasing) for the next batch, checked when its answers are recorded.
        record().catch((err) => this.log.error({ err, applicationId: appId }, 'recording webhook deliveries failed'));
        stamp = Math.max(Date.now(), stamp + 1);
        // Settings are read with every batch (in parallel with it), so a changed URL or type list
        // applies from the next batch.
        const [settings, batch] = await Promise.all([this.repo.settings(appId), this.repo.takeBatch(appId, this.opts.batchSize, stamp, [...recordingIds])]);
        if (!settings || settings.status !== WebhookStatus.Enabled || !settings.url) return;
        const types = new Set<string>(JSON.parse(settings.types) as string[]);
        if (batch.length === 0) {
          // Empty: keep the lease a little while for the next event rather than release and
          // claim again per event (a local record() wakes the wait; the last look sees the rest).
          if (lingerUntil === 0) lingerUntil = Date.now() + this.opts.lingerMs;
          const left = lingerUntil - Date.now();
          if (left <= 0 || this.closing || lost) return;
          await this.linger(appId, left);
          continue;
        }
        lingerUntil = 0;
        // Sends start in id order, at most maxInFlight at once (1 by default: one at a time, so a
        // receiver that answers gets them in order); answers are taken in id order too.
        const inFlight: { event: WebhookEventsTable; outcome: Promise<SendOutcome> }[] = [];
        // The URL is resolved and checked once per batch (every send is pinned to that address).
        const destination = this.destination(settings.url);
        destination.catch(() => {});
        let failed: { event: WebhookEventsTable; outcome: Extract<SendOutcome, { ok: false }> } | null = null;
        const settleOldest = async () => {
          const { event, outcome: pending } = inFlight.shift()!;
          const outcome = await pending;
          if (outcome.ok) {
            answered.push({ id: event.id, status: outcome.status, latencyMs: outcome.latencyMs });
            if (answered.length >= 16) void record().catch(() => {});
            if (failing) {
              failing = false;
              await this.repo.clearFailure(appId);
            }
          } else if (!failed) failed = { event, outcome };
          // A later failure among those already sent: its attempt counts; it stays pending.
          else await this.repo.markFailed(event.id, { status: outcome.status, error: outcome.error, latencyMs: outcome.latencyMs });
        };
        for (const event of batch) {
          if (this.closing || lost || failed) break;
          // Renewed while at least two send timeouts remain, so no send outlives the lease (a node
          // that takes over an expired lease would send the in-flight event again).
          if (Date.now() > leaseUntil - 2 * this.opts.timeoutMs) {
            leaseUntil = Date.now() + this.opts.leaseMs;
            if (!(await this.repo.renewLease(appId, this.nodeId, leaseUntil))) {
              lost = true;
              break;
            }
          }
          if (!types.has(event.type)) {
            await this.repo.markSkipped(event.id);
            continue;
          }
          inFlight.push({ event, outcome: this.send(settings.url, key, event, destination) });
          while (inFlight.length >= this.opts.maxInFlight) await settleOldest();
        }
        // Whatever was sent is answered (or times out) and recorded before anything else happens.
        while (inFlight.length > 0) await settleOldest();
        if (failed) {
          const { event, outcome } = failed as { event: WebhookEventsTable; outcome: Extract<SendOutcome, { ok: false }> };
          await record();
          await this.repo.markFailed(event.id, { status: outcome.status, error: outcome.error, latencyMs: outcome.latencyMs });
          const now = Date.now();
          const since = await this.repo.recordFailure(appId, now, now + this.backoff(event.attempts + 1), outcome.error);
          if (now - since >= this.opts.retryWindowMs) {
            await this.repo.disableByPlatform(appId, outcome.error);
            this.log.warn({ applicationId: appId }, 'webhook URL disabled after sustained failure');
          }
          return;
        }
        if (lost) return;
      }
    } finally {
      clearInterval(renewer);
      // Answers already received are recorded before the lease goes (a failure here leaves them
      // pending: they will be sent again, which at-least-once allows).
      await record().catch((err) => this.log.error({ err, applicationId: appId }, 'recording webhook deliveries failed'));
      await this.repo.releaseLease(appId, this.nodeId).catch(() => {});
    }
  }

  /** Waits until a record for `appId` on this node (plus a moment for its commit) or `ms`. */
  private linger(appId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout;
      let signaled = false;
      const done = () => {
        clearTimeout(timer);
        if (this.waiting.get(appId) === wake) this.waiting.delete(appId);
        resolve();
      };
      // record() runs inside the producer's transaction: look again once it has had time to commit.
      const wake = () => {
        // The first signal counts: later ones must not keep pushing the look back.
        if (signaled) return;
        signaled = true;
        clearTimeout(timer);
        timer = setTimeout(done, 1);
      };
      timer = setTimeout(done, ms);
      this.waiting.set(appId, wake);
    });
  }

  /** Resolves and checks a webhook URL's host (the SSRF rules of safeFetch.ts). */
  private async destination(url: string): Promise<{ address: string; family: number }> {
    return checkDestination(parseWebhookUrl(url, this.opts.allowLoopback), { allowLoopback: this.opts.allowLoopback, resolve: this.opts.resolve });
  }

  private async send(url: string, key: ReturnType<WebhookSigner['key']>, event: WebhookEventsTable, destination: Promise<{ address: string; family: number }>): Promise<SendOutcome> {
    const body = eventBody(event);
    const started = performance.now();
    try {
      const res = await safePost(url, WebhookSigner.headers(key, body), body, {
        destination: await destination,
        allowLoopback: this.opts.allowLoopback,
        resolve: this.opts.resolve,
        responseTimeoutMs: this.opts.timeoutMs,
        connectTimeoutMs: this.opts.timeoutMs,
      });
      if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, latencyMs: res.latencyMs };
      const detail = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : res.body ? `: ${res.body.slice(0, 200)}` : '';
      return { ok: false, status: res.status, error: `HTTP ${res.status}${detail}`, latencyMs: res.latencyMs };
    } catch (err) {
      const message = err instanceof SafeFetchError ? `${err.code}: ${err.message}` : String(err);
      return { ok: false, status: 0, error: message, latencyMs: Math.round(performance.now() - started) };
    }
  }

  /** Exponential with "equal jitter": half fixed, half random, so retries of many nodes spread. */
  backoff(failures: number): number {
    const exp = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** Math.min(30, failures - 1));
    return Math.round(exp / 2 + Math.random() * (exp / 2));
  }

  /** Stops claiming, lets each in-flight send finish (bounded by the timeout), releases leases. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.repo.onRecorded = null;
    for (const wake of [...this.waiting.values()]) wake();
    await Promise.allSettled([...this.active.values()]);
  }
}
