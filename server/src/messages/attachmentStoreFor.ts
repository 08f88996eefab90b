import { join, resolve } from 'node:path';
import { FsAttachmentStore, type AttachmentStore } from './attachments.ts';
import { S3AttachmentStore, type S3AttachmentOptions } from './s3AttachmentStore.ts';

export interface AttachmentStoreOptions {
  dataDir: string;
  /** A bucket instead of `<dataDir>/attachments`. Without it, SOCIAL_LAYER_S3_* environment variables are read. */
  s3?: S3AttachmentOptions;
}

/**
 * One store per data folder, shared by messages, interaction responses and emojis, so the CDN routes
 * read from where the uploads were written. startServer registers the server's choice first
 * (configureAttachmentStore); the services then get it by data folder.
 */
const byDataDir = new Map<string, AttachmentStore>();

/** The bucket from SOCIAL_LAYER_S3_BUCKET / _ENDPOINT / _REGION (credentials: the standard AWS variables), if set. */
export function s3OptionsFromEnv(env: NodeJS.ProcessEnv = process.env): S3AttachmentOptions | undefined {
  const bucket = env.SOCIAL_LAYER_S3_BUCKET;
  if (!bucket) return undefined;
  return {
    bucket,
    ...(env.SOCIAL_LAYER_S3_ENDPOINT ? { endpoint: env.SOCIAL_LAYER_S3_ENDPOINT } : {}),
    ...(env.SOCIAL_LAYER_S3_REGION ?? env.AWS_REGION ? { region: (env.SOCIAL_LAYER_S3_REGION ?? env.AWS_REGION)! } : {}),
  };
}

function make(options: AttachmentStoreOptions): AttachmentStore {
  const s3 = options.s3 ?? s3OptionsFromEnv();
  return s3 ? new S3AttachmentStore(s3) : new FsAttachmentStore(join(options.dataDir, 'attachments'));
}

/** Sets the store for a data folder (startServer, before any service is made). */
export function configureAttachmentStore(options: AttachmentStoreOptions): AttachmentStore {
  const store = make(options);
  byDataDir.set(resolve(options.dataDir), store);
  return store;
}

/** The attachment store for a data folder: the configured one, else a bucket from the environment, else the folder. */
export function attachmentStoreFor(options: AttachmentStoreOptions): AttachmentStore {
  const dir = resolve(options.dataDir);
  let store = byDataDir.get(dir);
  if (!store) byDataDir.set(dir, (store = make(options)));
  return store;
}
