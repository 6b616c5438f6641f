import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type BucketLocationConstraint,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidContentType, contentTypeForKey } from './content-type.js';
import { assertValidKey, assertValidPrefix, isValidKey, publicUploadUrl } from './keys.js';
import {
  RangeNotSatisfiableError,
  resolveRange,
  type ByteRange,
  type GetResult,
  type ObjectStat,
  type ObjectStorage,
  type PutOptions,
  type PutResult,
} from './object-storage.js';
import { ByteCounter, sliceStream, toReadable } from './streams.js';

export interface S3StorageOptions {
  /** e.g. http://minio:9000; unset for AWS itself. */
  endpoint?: string;
  bucket: string;
  region?: string;
  /** Both or neither; neither uses the SDK's default chain (environment, IAM role...). */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
  /** Multipart part size, at least 5 MiB (S3's minimum), which is the default. */
  partSizeBytes?: number;
  /** Parts in flight per put. Default 2: a put holds at most about (queueSize + 1) parts in memory. */
  queueSize?: number;
  /** A ready client (tests, custom transports); the options above are then ignored except bucket and sizes. */
  client?: S3Client;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
const DELETE_BATCH = 1000;

interface AwsError {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

function errorName(error: unknown): string | undefined {
  const e = error as AwsError | null;
  return e?.name ?? e?.Code;
}

function httpStatus(error: unknown): number | undefined {
  return (error as AwsError | null)?.$metadata?.httpStatusCode;
}

/** A missing object (a missing bucket is a configuration error and is thrown). */
function isMissingObject(error: unknown): boolean {
  const name = errorName(error);
  if (name === 'NoSuchBucket') return false;
  return name === 'NoSuchKey' || name === 'NotFound' || httpStatus(error) === 404;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : Object.assign(new Error('The put was aborted'), { name: 'AbortError' });
}

/** Builds the S3 client the way this project needs it against MinIO, s3rver and AWS alike. */
export function createS3Client(options: Omit<S3StorageOptions, 'bucket' | 'client'>): S3Client {
  if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey)) {
    throw new Error('S3 access key id and secret access key go together');
  }
  return new S3Client({
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle ?? true,
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    // Without these, streamed bodies are sent (and stored by some servers) with aws-chunked framing.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * Objects in one S3 bucket (MinIO in compose, any S3-compatible service in production).
 *
 * - put: lib-storage `Upload` — a single PutObject below one part, else a multipart
 *   upload with `partSizeBytes` parts and at most `queueSize` in flight, so memory stays
 *   bounded whatever the file size. The object appears only when the upload completes;
 *   a failure aborts the multipart upload (lib-storage's AbortMultipartUpload).
 * - get: GetObject with a `Range: bytes=start-end` header.
 * - The content type is the object's Content-Type.
 */
export class S3Storage implements ObjectStorage {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  readonly bucket: string;
  private readonly region: string;
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(options: S3StorageOptions) {
    if (!options.bucket) throw new Error('S3Storage needs a bucket');
    this.bucket = options.bucket;
    this.region = options.region ?? 'us-east-1';
    this.client = options.client ?? createS3Client(options);
    this.partSize = Math.max(MIN_PART_SIZE, options.partSizeBytes ?? MIN_PART_SIZE);
    this.queueSize = Math.max(1, Math.floor(options.queueSize ?? 2));
  }

  async ensureReady(): Promise<void> {
    await this.ensureBucket();
  }

  /** Creates the bucket when it does not exist yet. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (error) {
      if (!(
        errorName(error) === 'NotFound' ||
        errorName(error) === 'NoSuchBucket' ||
        httpStatus(error) === 404
      )) {
        throw error;
      }
    }
    try {
      await this.client.send(
        new CreateBucketCommand({
          Bucket: this.bucket,
          ...(this.region !== 'us-east-1'
            ? { CreateBucketConfiguration: { LocationConstraint: this.region as BucketLocationConstraint } }
            : {}),
        }),
      );
    } catch (error) {
      // another replica made it first
      if (errorName(error) !== 'BucketAlreadyOwnedByYou' && errorName(error) !== 'BucketAlreadyExists')
        throw error;
    }
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<PutResult> {
    const source = toReadable(body);
    const { signal } = options;
    try {
      assertValidKey(key);
      assertValidContentType(options.contentType);
      signal?.throwIfAborted();
    } catch (error) {
      source.destroy();
      throw error;
    }
    const counter = new ByteCounter(options.maxBytes);
    let streamError: unknown;
    // A source error (or maxBytes) destroys the counter, which fails the Upload's reads.
    const piping = pipeline(source, counter).catch((error) => {
      streamError ??= error;
    });
    const onAbort = () => {
      streamError ??= abortReason(signal!);
      counter.destroy(streamError as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: counter, ContentType: options.contentType },
      partSize: this.partSize,
      queueSize: this.queueSize,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      source.destroy();
      counter.destroy();
      await piping;
      // Prefer the cause (source error, too large, aborted) over what the upload made of it,
      // e.g. a server that refuses AbortMultipartUpload.
      throw streamError ?? error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    await piping;
    if (signal?.aborted || streamError) {
      // aborted after the last byte was read: the object exists, so take it back
      await this.delete(key);
      throw streamError ?? abortReason(signal!);
    }
    return { key, size: counter.bytes };
  }

  async get(key: string, range?: ByteRange): Promise<GetResult | null> {
    assertValidKey(key);
    if (range) resolveRange(range, Number.MAX_SAFE_INTEGER); // shape check only
    let out;
    try {
      out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end ?? ''}` } : {}),
        }),
      );
    } catch (error) {
      if (errorName(error) === 'InvalidRange' || httpStatus(error) === 416) {
        const stat = await this.stat(key);
        if (!stat) return null;
        throw new RangeNotSatisfiableError(stat.size);
      }
      if (isMissingObject(error)) return null;
      throw error;
    }
    let body = out.Body as Readable;
    const contentType = out.ContentType || contentTypeForKey(key);
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(out.ContentRange ?? '');
    const size = match ? Number(match[3]) : Number(out.ContentLength ?? 0);
    if (!range) return { body, size, contentType };
    let wanted;
    try {
      wanted = resolveRange(range, size);
    } catch (error) {
      body.destroy();
      throw error;
    }
    // What the server sent: its Content-Range, or the whole object when it ignored Range.
    const gotStart = match ? Number(match[1]) : 0;
    const gotEnd = match ? Number(match[2]) : size - 1;
    if (gotStart !== wanted.start || gotEnd !== wanted.end) {
      if (gotStart > wanted.start || gotEnd < wanted.end) {
        body.destroy();
        throw new Error(`S3 answered range ${gotStart}-${gotEnd} for ${wanted.start}-${wanted.end}`);
      }
      // Some servers (s3rver for "bytes=0-0") send more than asked: cut it to the asked range.
      body = sliceStream(body, wanted.start - gotStart, wanted.end - wanted.start + 1);
    }
    return { body, size, contentType, range: wanted };
  }

  async stat(key: string): Promise<ObjectStat | null> {
    assertValidKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: Number(out.ContentLength ?? 0), contentType: out.ContentType || contentTypeForKey(key) };
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw error;
    }
  }

  /** One CopyObject request (objects here are at most 100 MB, under S3's 5 GB single-copy limit). */
  async copy(fromKey: string, toKey: string): Promise<PutResult | null> {
    assertValidKey(toKey);
    const source = await this.stat(fromKey);
    if (!source) return null;
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: toKey,
          // Keys are [A-Za-z0-9._-/] only (assertValidKey): nothing to escape.
          CopySource: `${this.bucket}/${fromKey}`,
          MetadataDirective: 'COPY',
        }),
      );
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw error;
    }
    return { key: toKey, size: source.size };
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isMissingObject(error)) throw error;
    }
  }

  async deleteMany(keys: string[]): Promise<void> {
    keys.forEach((key) => assertValidKey(key));
    const unique = [...new Set(keys)];
    for (let i = 0; i < unique.length; i += DELETE_BATCH) {
      const batch = unique.slice(i, i + DELETE_BATCH);
      const out = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length > 0) {
        throw new Error(
          `S3 could not delete ${failed.length} object(s), first ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message ?? ''}`.trim(),
        );
      }
    }
  }

  async list(prefix = ''): Promise<string[]> {
    assertValidPrefix(prefix);
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          ...(prefix ? { Prefix: prefix } : {}),
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const item of out.Contents ?? []) if (isValidKey(item.Key)) keys.push(item.Key);
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  publicUrl(key: string): string {
    return publicUploadUrl(key);
  }

  /** Closes the client's sockets. */
  destroy(): void {
    this.client.destroy();
  }
}
