import type { FieldErrorTree } from '@social-layer/protocol';
import { Errors } from '../errors/ApiError.ts';
import { WebhookStatus, type WebhookEventRepo } from '../storage/WebhookEventRepo.ts';
import type { WebhookEventsTable } from '../storage/schema.ts';
import { pingBody, WebhookEventTypes } from './payload.ts';
import { parseWebhookUrl, SafeFetchError, safePost, type SafeFetchOptions } from './safeFetch.ts';
import { WebhookSigner } from './signing.ts';

/** The webhook fields of PATCH /applications/@me (public names). */
export interface WebhookPatch {
  event_webhooks_url?: string | null;
  event_webhooks_status?: number;
  event_webhooks_types?: string[];
}

/** The webhook fields of the application object, and the key receivers verify with. */
export interface WebhookWire {
  verify_key: string;
  event_webhooks_url: string | null;
  event_webhooks_status: number;
  event_webhooks_types: string[];
  /** Ours: why the platform disabled the URL (status 3), for the portal. */
  event_webhooks_last_error?: string;
}

/** Where a semantic error is reported: the application edit's shared 50035 collector. */
export interface ErrorSink {
  add(path: (string | number)[], code: string, message: string): void;
}

/** One delivery row as the portal lists it. */
export interface DeliveryView {
  id: string;
  type: string;
  created_at: string;
  state: 'delivered' | 'pending' | 'skipped';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  latency_ms: number | null;
  last_attempt_at: string | null;
}

/**
 * Webhook configuration (issue 15): validation of the public fields, the PING a new URL must
 * answer with 204 within 3 s before it is saved, the `verify_key`, the portal's delivery list and
 * "send again". The application edit (ApplicationService / PATCH /applications/@me) calls
 * `prepare` with its error collector, throws if anything was collected, then calls the returned
 * commit, so one 50035 answer names every problem and nothing is half-saved.
 */
export class WebhookService {
  constructor(
    private readonly repo: WebhookEventRepo,
    private readonly fetchOptions: Pick<SafeFetchOptions, 'allowLoopback' | 'resolve'> & { timeoutMs?: number },
    /** Wakes the delivery worker after a change that makes events due. */
    private readonly wake: () => void = () => {},
  ) {}

  async wire(applicationId: string): Promise<WebhookWire> {
    const [verifyKey, s] = await Promise.all([this.repo.verifyKey(applicationId), this.repo.settings(applicationId)]);
    const out: WebhookWire = {
      verify_key: verifyKey,
      event_webhooks_url: s?.url ?? null,
      event_webhooks_status: s?.status ?? WebhookStatus.Disabled,
      event_webhooks_types: s ? (JSON.parse(s.types) as string[]) : [],
    };
    if (s?.status === WebhookStatus.DisabledByPlatform && s.last_error) out.event_webhooks_last_error = s.last_error;
    return out;
  }

  /**
   * Checks a patch (adding problems to `errs`) and PINGs a new or re-enabled URL. Returns the
   * write to run once the whole edit is known to be valid, or null when the patch has no
   * webhook field.
   */
  async prepare(applicationId: string, patch: WebhookPatch, errs: ErrorSink): Promise<(() => Promise<void>) | null> {
    const touched = patch.event_webhooks_url !== undefined || patch.event_webhooks_status !== undefined || patch.event_webhooks_types !== undefined;
    if (!touched) return null;
    const current = await this.repo.settings(applicationId);
    let url = current?.url ?? null;
    let status = current?.status ?? WebhookStatus.Disabled;
    let types = current ? (JSON.parse(current.types) as string[]) : [];
    let problems = 0;
    const add = (path: (string | number)[], code: string, message: string) => {
      problems++;
      errs.add(path, code, message);
    };

    if (patch.event_webhooks_url !== undefined) {
      const raw = patch.event_webhooks_url;
      if (raw === null || raw === '') {
        url = null;
        status = WebhookStatus.Disabled;
      } else {
        try {
          parseWebhookUrl(raw, this.fetchOptions.allowLoopback);
          if (raw !== url && patch.event_webhooks_status === undefined) status = WebhookStatus.Enabled;
          url = raw;
        } catch (err) {
          add(['event_webhooks_url'], 'URL_TYPE_INVALID_URL', err instanceof SafeFetchError ? capitalize(err.message) : 'Not a well formed URL.');
        }
      }
    }
    if (patch.event_webhooks_status !== undefined) {
      const s = patch.event_webhooks_status;
      if (s !== WebhookStatus.Disabled && s !== WebhookStatus.Enabled) {
        add(['event_webhooks_status'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2}; 3 is set by the platform.');
      } else if (s === WebhookStatus.Enabled && !url) {
        add(['event_webhooks_status'], 'APPLICATION_EVENT_WEBHOOKS_URL_REQUIRED', 'Set event_webhooks_url to enable webhook events.');
      } else status = s;
    }
    if (patch.event_webhooks_types !== undefined) {
      const known = new Set<string>(WebhookEventTypes);
      if (patch.event_webhooks_types.length > known.size) add(['event_webhooks_types'], 'BASE_TYPE_MAX_LENGTH', `Must be ${known.size} or fewer in length.`);
      patch.event_webhooks_types.forEach((t, i) => {
        if (!known.has(t)) add(['event_webhooks_types', i], 'BASE_TYPE_CHOICES', `Value must be one of ${[...known].join(', ')}.`);
      });
      types = [...new Set(patch.event_webhooks_types)];
    }
    if (problems > 0) return async () => {};

    // A receiver must prove it is there (and verifies our signature) before events go to it.
    const verifying = status === WebhookStatus.Enabled && url !== null && (url !== current?.url || current?.status !== WebhookStatus.Enabled);
    if (verifying) {
      const failure = await this.ping(applicationId, url!);
      if (failure) {
        add(['event_webhooks_url'], 'APPLICATION_EVENT_WEBHOOKS_URL_UNVERIFIED', `The URL did not answer the PING with 204 within 3 seconds (${failure}).`);
        return async () => {};
      }
    }
    return async () => {
      await this.repo.saveSettings(applicationId, { url, status, types });
      this.wake();
    };
  }

  /** Validates and saves in one step (for callers with no other fields to check). Throws 50035. */
  async update(applicationId: string, patch: WebhookPatch): Promise<WebhookWire> {
    const tree: FieldErrorTree = {};
    let count = 0;
    const commit = await this.prepare(applicationId, patch, {
      add(path, code, message) {
        count++;
        let node: FieldErrorTree = tree;
        for (const key of path) node = (node[String(key)] ??= {}) as FieldErrorTree;
        ((node._errors as { code: string; message: string }[] | undefined) ??= []).push({ code, message });
      },
    });
    if (count > 0) throw Errors.invalidForm(tree);
    await commit?.();
    return this.wire(applicationId);
  }

  /** Sends a signed PING; null when the receiver answered 204 in time, else why not. */
  async ping(applicationId: string, url: string): Promise<string | null> {
    const keys = await this.repo.keyPair(applicationId);
    const key = new WebhookSigner().key(applicationId, keys.private_key);
    const body = pingBody(applicationId);
    try {
      const res = await safePost(url, WebhookSigner.headers(key, body), body, {
        ...this.fetchOptions,
        responseTimeoutMs: this.fetchOptions.timeoutMs ?? 3000,
        connectTimeoutMs: this.fetchOptions.timeoutMs ?? 3000,
      });
      return res.status === 204 ? null : `HTTP ${res.status}`;
    } catch (err) {
      return err instanceof SafeFetchError ? err.message : 'request failed';
    }
  }

  /** The portal's list: the latest events with their delivery state, newest first. */
  async recentDeliveries(applicationId: string, limit = 50): Promise<DeliveryView[]> {
    return (await this.repo.recent(applicationId, limit)).map(deliveryView);
  }

  /** "Send again": the event goes back in the queue with its id. False if it is not this application's. */
  async resend(applicationId: string, eventId: string): Promise<boolean> {
    const n = await this.repo.requeue(applicationId, { id: eventId });
    if (n > 0) this.wake();
    return n > 0;
  }

  /** The operator's replay: every event of the application since `since` (ms) is sent again. */
  async replay(applicationId: string, since: number): Promise<number> {
    const n = await this.repo.requeue(applicationId, { since });
    if (n > 0) this.wake();
    return n;
  }
}

function deliveryView(row: WebhookEventsTable): DeliveryView {
  const iso = (v: number | string | null | undefined) => (v === null || v === undefined ? null : new Date(Number(v)).toISOString());
  return {
    id: row.id,
    type: row.type,
    created_at: iso(row.created_at)!,
    state: row.delivered_at !== null ? 'delivered' : row.skipped_at ? 'skipped' : 'pending',
    attempts: row.attempts,
    last_status: row.last_status ?? null,
    last_error: row.last_error ?? null,
    latency_ms: row.latency_ms ?? null,
    last_attempt_at: iso(row.last_attempt_at),
  };
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1) + (s.endsWith('.') ? '' : '.');
}
