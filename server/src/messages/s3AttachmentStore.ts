import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { AttachmentStore } from './attachments.ts';

/**
 * The AWS SDK is loaded on first use: it costs a fresh server about 15 MB of resident memory
 * (gateway-idle's load accounting), and most servers keep attachments in the data folder.
 */
type Sdk = typeof import('@aws-sdk/client-s3');
let sdk: Promise<Sdk> | null = null;
const loadSdk = (): Promise<Sdk> => (sdk ??= import('@aws-sdk/client-s3'));

/** Where an S3-compatible bucket is (issue 11). Credentials default to the standard AWS environment/config chain. */
export interface S3AttachmentOptions {
  bucket: string;
  /** A non-AWS endpoint (MinIO, a local test server...); path-style addressing is used with it. */
  endpoint?: string;
  region?: string;
  /** Object key prefix inside the bucket, e.g. `attachments/`. Default none. */
  prefix?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Attachment bytes in an S3-compatible bucket; the same keys (and key rule) as the data-folder store. */
export class S3AttachmentStore implements AttachmentStore {
  private readonly client: Promise<S3Client>;

  constructor(private readonly options: S3AttachmentOptions) {
    // Checksums only where an operation requires one: by default the SDK sends a streamed upload
    // (putFile) as aws-chunked with a trailing checksum, which S3-compatible servers without that
    // encoding store as the object's bytes.
    const config: S3ClientConfig = { region: options.region ?? 'us-east-1', requestChecksumCalculation: 'WHEN_REQUIRED' };
    if (options.endpoint) {
      config.endpoint = options.endpoint;
      // Most self-hosted S3 servers have no per-bucket DNS names.
      config.forcePathStyle = true;
    }
    if (options.credentials) config.credentials = options.credentials;
    this.client = loadSdk().then((m) => new m.S3Client(config));
  }

  private key(key: string): string {
    // Same rule as FsAttachmentStore: keys are two snowflakes, never anything from a filename.
    if (!/^\d{1,20}\/\d{1,20}$/.test(key)) throw new Error('bad attachment key');
    return `${this.options.prefix ?? ''}${key}`;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const { PutObjectCommand } = await loadSdk();
    await (await this.client).send(new PutObjectCommand({ Bucket: this.options.bucket, Key: this.key(key), Body: data, ContentLength: data.length }));
  }

  async putFile(key: string, path: string): Promise<void> {
    const { PutObjectCommand } = await loadSdk();
    const k = this.key(key);
    const { size } = await stat(path);
    // A read stream with its length: the file goes to the bucket without being held in memory.
    const body = createReadStream(path);
    try {
      await (await this.client).send(new PutObjectCommand({ Bucket: this.options.bucket, Key: k, Body: body, ContentLength: size }));
    } finally {
      body.destroy();
    }
    await rm(path, { force: true });
  }

  async get(key: string): Promise<Buffer | undefined> {
    const k = this.key(key);
    try {
      const { GetObjectCommand } = await loadSdk();
      const res = await (await this.client).send(new GetObjectCommand({ Bucket: this.options.bucket, Key: k }));
      if (!res.Body) return undefined;
      return Buffer.from(await res.Body.transformToByteArray());
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 deletes are idempotent: a missing key is not an error.
    const { DeleteObjectCommand } = await loadSdk();
    await (await this.client).send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) }));
  }

  destroy(): void {
    void this.client.then((c) => c.destroy(), () => {});
  }
}
