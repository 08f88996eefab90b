import type { Store } from '../storage/Store.ts';
import { type WebhookDeliveryOptions, WebhookDeliveryWorker, type WebhookLog } from './WebhookDeliveryWorker.ts';
import { WebhookService } from './WebhookService.ts';

export interface WebhookOptions extends WebhookDeliveryOptions {
  /** Run the delivery worker on this node. Default true (every node may; leases share the work). */
  deliver?: boolean;
}

export interface Webhooks {
  service: WebhookService;
  worker: WebhookDeliveryWorker;
  close(): Promise<void>;
}

/**
 * The webhook slice of a server node: configuration (WebhookService) and the delivery worker.
 * `dev` is the server's development mode: http and loopback receivers are allowed.
 */
export async function startWebhooks(store: Store, log: WebhookLog, dev: boolean, options: WebhookOptions = {}): Promise<Webhooks> {
  const allowLoopback = options.allowLoopback ?? dev;
  const worker = new WebhookDeliveryWorker(store.webhookEvents, log, { ...options, allowLoopback });
  const service = new WebhookService(store.webhookEvents, { allowLoopback, resolve: options.resolve, timeoutMs: options.timeoutMs }, () => worker.wake(0));
  if (options.deliver !== false) await worker.start();
  return { service, worker, close: () => worker.close() };
}
