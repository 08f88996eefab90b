import { randomBytes } from 'node:crypto';
import type { WebhookEventsTable } from '../storage/schema.ts';
import { WebhookStatus, type WebhookEventRepo, type WebhookSettingsTable } from '../storage/WebhookEventRepo.ts';
import { eventBody } from './payload.ts';
import { SafeFetchError, safePost, type SafeFetchOptions } from './safeFetch.ts';
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
  /** Backoff after the n-th consecutive failure: min(max, base * 2^(n-1)), then jittered to 50-100%. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A failure streak this long disables the URL (status 3). Default 24 h plus one maximum backoff. */
  retryWindowMs?: number;
  /** The receiver's time to answer. Default 3 s. */
  timeoutMs?: number;
  /** Delivered and skipped events older than this are purged (checked hourly). Default 7 days. */
  retentionMs?: number;
}

const HOUR = 3_600_000;

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
  private timer: NodeJS.Timeout | null = null;
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
      backoffBaseMs: options.backoffBaseMs ?? 1000,
      backoffMaxMs,
      retryWindowMs: options.retryWindowMs ?? 24 * HOUR + backoffMaxMs,
      timeoutMs: options.timeoutMs ?? 3000,
      retentionMs: options.retentionMs ?? 7 * 24 * HOUR,
    };
  }

  async start(): Promise<void> {
    // SQLite has one writer, this process: any lease in the file belonged to a process that died.
    if (this.repo.dialect === 'sqlite') await this.repo.releaseAllLeases();
    this.repo.onRecorded = () => this.wake(5);
    this.wake(0);
  }

  /** Looks for due work after `delayMs` (sooner calls win). */
  wake(delayMs = 0): void {
    if (this.closing) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
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
    const keys = await this.repo.keyPair(appId);
    const key = this.signer.key(appId, keys.private_key);
    // 2xx answers not yet recorded, and the recording in flight: the next send does not wait for
    // the commit, but the next read of the queue does (else it would see them as pending).
    let answered: { id: string; status: number; latencyMs: number }[] = [];
    let recording: Promise<void> = Promise.resolve();
    let stamp = 0;
    const record = () => {
      const group = answered;
      const groupStamp = stamp;
      answered = [];
      recording = recording.then(() => this.repo.markDeliveredMany(group, groupStamp));
      return recording;
    };
    try {
      while (!this.closing) {
        // Settings are read per batch, so a changed URL or type list applies within one batch.
        const settings = await this.repo.settings(appId);
        if (!settings || settings.status !== WebhookStatus.Enabled || !settings.url) return;
        const types = new Set<string>(JSON.parse(settings.types) as string[]);
        await record();
        const batch = await this.repo.nextBatch(appId, this.opts.batchSize);
        if (batch.length === 0) return;
        // A new stamp per batch (strictly increasing), checked when the answers are recorded.
        stamp = Math.max(Date.now(), stamp + 1);
        await this.repo.stampBatch(
          batch.map((e) => e.id),
          stamp,
        );
        for (const event of batch) {
          if (this.closing || lost) return;
          // Renewed while at least two send timeouts remain, so no send outlives the lease (a node
          // that takes over an expired lease would send the in-flight event again).
          if (Date.now() > leaseUntil - 2 * this.opts.timeoutMs) {
            leaseUntil = Date.now() + this.opts.leaseMs;
            if (!(await this.repo.renewLease(appId, this.nodeId, leaseUntil))) {
              lost = true;
              return;
            }
          }
          if (!types.has(event.type)) {
            await this.repo.markSkipped(event.id);
            continue;
          }
          const outcome = await this.send(settings.url, key, event);
          if (outcome.ok) {
            answered.push({ id: event.id, status: outcome.status, latencyMs: outcome.latencyMs });
            if (answered.length >= 16) void record().catch(() => {});
            if (failing) {
              failing = false;
              await this.repo.clearFailure(appId);
            }
            continue;
          }
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
      }
    } finally {
      clearInterval(renewer);
      // Answers already received are recorded before the lease goes (a failure here leaves them
      // pending: they will be sent again, which at-least-once allows).
      await record().catch((err) => this.log.error({ err, applicationId: appId }, 'recording webhook deliveries failed'));
      await this.repo.releaseLease(appId, this.nodeId).catch(() => {});
    }
  }

  private async send(url: string, key: ReturnType<WebhookSigner['key']>, event: WebhookEventsTable): Promise<{ ok: true; status: number; latencyMs: number } | { ok: false; status: number; error: string; latencyMs: number }> {
    const body = eventBody(event);
    const started = performance.now();
    try {
      const res = await safePost(url, WebhookSigner.headers(key, body), body, {
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
    await Promise.allSettled([...this.active.values()]);
  }
}
