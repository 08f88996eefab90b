import { randomBytes } from 'node:crypto';
import type { Store } from '../storage/Store.ts';
import { type InteractionRepo } from '../storage/InteractionRepo.ts';
import { WebhookSigner } from '../webhooks/signing.ts';
import { safePost, type SafeFetchOptions, SafeFetchError } from '../webhooks/safeFetch.ts';
import type { UrlPolicy } from '../config/urlPolicy.ts';
import { CallbackType, InteractionType } from './interactionWire.ts';

/**
 * An application's interactions endpoint (for InteractionService): the URL set with PATCH
 * /applications/@me or the portal, verified as the public platform does, and the signed POST
 * that delivers each interaction to it.
 */
export class InteractionEndpoint {
  private readonly signer = new WebhookSigner();

  constructor(
    private readonly store: Store,
    private readonly repo: InteractionRepo,
    private readonly urlPolicy: UrlPolicy,
    private readonly options: { dev: boolean; resolve?: SafeFetchOptions['resolve'] },
    private readonly deadlineMs: number,
  ) {}

  private fetchOptions(timeoutMs: number): SafeFetchOptions {
    return { allowLoopback: this.options.dev, ...(this.options.resolve ? { resolve: this.options.resolve } : {}), responseTimeoutMs: timeoutMs, connectTimeoutMs: timeoutMs, maxBodyBytes: 256 * 1024 };
  }

  async endpointWire(applicationId: string): Promise<{ interactions_endpoint_url: string | null }> {
    return { interactions_endpoint_url: await this.repo.endpoint(applicationId) };
  }

  /**
   * Checks `interactions_endpoint_url` of an application edit (problems to `errs`) and verifies a
   * new URL as the public platform does: a PING with a wrong signature must be refused, a signed
   * PING must be answered `{type: 1}`. Returns the write, or null when the edit has no such field.
   */
  async prepareEndpoint(applicationId: string, patch: { interactions_endpoint_url?: string | null }, errs: { add(path: (string | number)[], code: string, message: string): void }): Promise<(() => Promise<void>) | null> {
    const raw = patch.interactions_endpoint_url;
    if (raw === undefined) return null;
    if (raw === null || raw === '') return () => this.repo.setEndpoint(applicationId, null);
    const verdict = this.urlPolicy.check('interactions_endpoint', raw);
    if (!verdict.ok) {
      errs.add(['interactions_endpoint_url'], verdict.code, verdict.message);
      return async () => {};
    }
    if (raw === (await this.repo.endpoint(applicationId))) return async () => {};
    const failure = await this.verifyEndpoint(applicationId, raw);
    if (failure) {
      errs.add(['interactions_endpoint_url'], 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID', `The specified interactions endpoint url could not be verified (${failure}).`);
      return async () => {};
    }
    return () => this.repo.setEndpoint(applicationId, raw);
  }

  /** null when the endpoint refused a bad signature and answered a signed PING with type 1 in time; else why not. */
  async verifyEndpoint(applicationId: string, url: string): Promise<string | null> {
    const key = this.signer.key(applicationId, (await this.store.webhookEvents.keyPair(applicationId)).private_key);
    const body = JSON.stringify({ id: this.store.ids.next(), application_id: applicationId, type: InteractionType.Ping, token: randomBytes(32).toString('base64url'), version: 1 });
    try {
      const good = WebhookSigner.headers(key, body);
      const bad = { ...good, 'x-signature-ed25519': good['x-signature-ed25519']!.replace(/^./, (c) => (c === '0' ? '1' : '0')) };
      const forged = await safePost(url, { ...bad, 'content-type': 'application/json' }, body, this.fetchOptions(this.deadlineMs));
      if (forged.status >= 200 && forged.status < 300) return 'it accepted a request with an invalid signature';
      const res = await safePost(url, { ...good, 'content-type': 'application/json' }, body, this.fetchOptions(this.deadlineMs));
      if (res.status !== 200) return `HTTP ${res.status}`;
      return (JSON.parse(res.body) as { type?: number }).type === CallbackType.Pong ? null : 'the PING was not answered with type 1';
    } catch (err) {
      return err instanceof SafeFetchError ? err.message : 'the answer was not JSON';
    }
  }

  /** Sends an interaction, signed, to the application's endpoint `url`; its answer. */
  async post(applicationId: string, url: string, json: string): Promise<Awaited<ReturnType<typeof safePost>>> {
    const key = this.signer.key(applicationId, (await this.store.webhookEvents.keyPair(applicationId)).private_key);
    return safePost(url, { ...WebhookSigner.headers(key, json), 'content-type': 'application/json', 'user-agent': 'SocialLayer-Interactions (1)' }, json, this.fetchOptions(this.deadlineMs));
  }
}
