import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import {
  Patterns,
  type MediaResult,
  type MediaVariant,
  type PendingMediaItem,
  type PendingMediaQuery,
  type RpcAnswer,
  type RpcRequest,
  type TypedPattern,
} from '@blog/contracts';
import { JsonLogger, type Job, type JobQueue, type ObjectStorage, run, sendTyped } from '@blog/server-kit';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MEDIA_CONFIG, type MediaConfig } from '../config.js';
import { SettingsService } from '../settings/settings.service.js';
import { FFMPEG, JOB_QUEUE, POSTS_CLIENT, STORAGE } from '../tokens.js';
import { renderImage, UnprocessableMediaError, type RenderedFile } from './image-processor.js';
import { renderVideo } from './video-processor.js';

export const CONTENT_TYPES: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
};

/**
 * Where an item's derived files go: fixed by the item, its original and the settings, so a
 * rerun writes the same keys (the crop preview's name adds the crop).
 */
export function outputFolder(item: PendingMediaItem, fingerprint: unknown): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([item.originalKey, fingerprint]))
    .digest('hex')
    .slice(0, 16);
  return `media/items/${item.id}/${hash}`;
}

/**
 * The media worker: queues pending items (on request and by a periodic sweep of the posts
 * service's pending items) and turns each original into what the site serves, then reports
 * the result to the posts service. Unreadable files end `failed`; anything else is retried,
 * up to MEDIA_JOB_ATTEMPTS runs counted by the posts service (so across sweeps, restarts and
 * replicas), and then ends `failed` with its last error until an admin retries it.
 */
@Injectable()
export class MediaWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: JsonLogger;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    @Inject(MEDIA_CONFIG) private readonly config: MediaConfig,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue<PendingMediaItem>,
    @Inject(POSTS_CLIENT) private readonly posts: ClientProxy,
    @Inject(FFMPEG) private readonly ffmpeg: { ffmpeg: string; ffprobe: string },
    private readonly settings: SettingsService,
  ) {
    this.logger = new JsonLogger('media', config.LOG_LEVEL);
  }

  onApplicationBootstrap() {
    this.queue.process((job) => this.process(job));
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.MEDIA_SWEEP_SECONDS * 1000);
    this.sweepTimer.unref();
    void this.sweep(true);
  }

  async onModuleDestroy() {
    clearInterval(this.sweepTimer);
    await this.queue.close();
    this.posts.close();
  }

  /** Queues these items now; returns how many were queued. */
  async enqueue(ids: string[]): Promise<{ queued: number }> {
    if (ids.length === 0) return { queued: 0 };
    return { queued: await this.addAll(await this.pending({ ids })) };
  }

  /** Items pending for too long go back in the queue (a queued or running one is not doubled). */
  async sweep(everything = false): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const items = await this.pending({
        olderThanSeconds: everything ? 0 : this.config.MEDIA_PENDING_AFTER_SECONDS,
        limit: 500,
      });
      await this.addAll(items);
    } catch (error) {
      this.logger.event('warn', 'media sweep failed', { reason: (error as Error).message });
    } finally {
      this.sweeping = false;
    }
  }

  private async addAll(items: PendingMediaItem[]): Promise<number> {
    let queued = 0;
    for (const item of items) {
      try {
        await this.queue.add(item.id, item);
        queued++;
      } catch (error) {
        // Redis down: the sweep queues it again later.
        this.logger.event('warn', 'could not queue media item', {
          id: item.id,
          reason: (error as Error).message,
        });
      }
    }
    return queued;
  }

  private pending(query: PendingMediaQuery): Promise<PendingMediaItem[]> {
    return this.callPosts(Patterns.posts.pendingMedia, query);
  }

  /** A call of the posts service, its request and answer as RpcContracts declares them. */
  private async callPosts<P extends TypedPattern>(pattern: P, data: RpcRequest<P>): Promise<RpcAnswer<P>> {
    return sendTyped(this.posts, pattern, data, { requestId: randomUUID(), timeoutMs: 15_000 });
  }

  /** One job: render, store under deterministic keys, report. Throws only for what a retry may fix. */
  async process(job: Job<PendingMediaItem>): Promise<void> {
    const item = job.data;
    const limit = this.config.MEDIA_JOB_ATTEMPTS;
    const run = { id: item.id, originalKey: item.originalKey };
    const started = await this.callPosts(Patterns.posts.mediaRunStarted, run);
    if (!started) return; // gone, replaced or already done
    const failed = (error: string): MediaResult => ({ ...run, crop: item.crop, status: 'failed', error });
    let result: MediaResult;
    let written: string[] = [];
    if (started.attempts > limit) {
      // The earlier runs never reported (a worker died during each): stop here.
      result = failed(
        `gave up after ${limit} runs: ${started.lastError ?? 'the worker stopped during each run'}`,
      );
    } else {
      try {
        const made = item.type === 'video' ? await this.video(item) : await this.image(item);
        written = made.written;
        result = made.result;
      } catch (error) {
        const reason = (error as Error).message.split('\n')[0]!.slice(0, 1000);
        if (error instanceof UnprocessableMediaError) {
          result = failed(reason);
        } else if (started.attempts >= limit) {
          result = failed(`gave up after ${limit} runs: ${reason}`);
        } else {
          await this.callPosts(Patterns.posts.mediaRunFailed, { ...run, error: reason }).catch(
            () => undefined,
          );
          throw error;
        }
      }
    }
    if (result.status === 'failed') {
      this.logger.event('info', 'media item failed', { id: item.id, reason: result.error });
    }
    const { applied } = await this.callPosts(Patterns.posts.mediaResult, result);
    if (applied) return;
    // The item went, or was replaced or re-cropped meanwhile: drop these files and look again
    // shortly (this job's id is free by then; a gone item is simply not handed out).
    if (written.length > 0) await this.storage.deleteMany(written);
    setTimeout(() => void this.enqueue([item.id]).catch(() => undefined), 1000).unref();
  }

  private async readOriginal(item: PendingMediaItem): Promise<Buffer> {
    const original = await this.storage.get(item.originalKey);
    if (!original) throw new UnprocessableMediaError('the original file is missing');
    const chunks: Buffer[] = [];
    for await (const chunk of original.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  private async image(item: PendingMediaItem) {
    const settings = await this.settings.get();
    const input = await this.readOriginal(item);
    const rendering = await renderImage(input, settings, item.crop);
    const folder = outputFolder(item, settings);
    const store = async (file: RenderedFile) => {
      const key = `${folder}/${file.name}`;
      const { size } = await this.storage.put(key, file.data, { contentType: CONTENT_TYPES[file.format]! });
      return { key, size };
    };
    const variants: MediaVariant[] = [];
    for (const file of rendering.variants) {
      const { key, size } = await store(file);
      variants.push({ key, format: file.format, width: file.width, height: file.height, size });
    }
    const cropTag = createHash('sha256').update(JSON.stringify(item.crop)).digest('hex').slice(0, 8);
    const preview = rendering.cropPreview
      ? await store({ ...rendering.cropPreview, name: `crop-${cropTag}-${rendering.cropPreview.name}` })
      : null;
    const mainKey = `${folder}/${rendering.main.name}`;
    const small = variants.find((v) => v.format === rendering.main.format && v.width <= 400) ?? null;
    const written = [...variants.map((v) => v.key), ...(preview ? [preview.key] : [])];
    const result: MediaResult = {
      id: item.id,
      originalKey: item.originalKey,
      crop: item.crop,
      status: 'ready',
      storageKey: mainKey,
      thumbnailKey: small?.key ?? mainKey,
      croppedPreviewKey: preview?.key ?? null,
      width: rendering.width,
      height: rendering.height,
      durationSeconds: null,
      variants,
    };
    return { result, written };
  }

  private async video(item: PendingMediaItem) {
    const settings = await this.settings.get();
    const original = await this.storage.get(item.originalKey);
    if (!original) throw new UnprocessableMediaError('the original file is missing');
    const dir = await mkdtemp(join(tmpdir(), 'media-video-'));
    try {
      const ext = extname(item.originalKey) || '.mp4';
      const input = join(dir, `in${ext}`);
      await pipeline(original.body, createWriteStream(input));
      const rendering = await renderVideo(input, settings, this.ffmpeg);
      // The served copy: the same streams without the container's metadata (location, device).
      const output = join(dir, `out${ext}`);
      try {
        await run(
          this.ffmpeg.ffmpeg,
          [
            '-v',
            'error',
            '-i',
            input,
            '-map',
            '0',
            '-map_metadata',
            '-1',
            '-c',
            'copy',
            ...(ext === '.mp4' || ext === '.mov' ? ['-movflags', '+faststart'] : []),
            '-y',
            output,
          ],
          10 * 60_000,
        );
      } catch (error) {
        throw new UnprocessableMediaError(
          `the video could not be rewritten: ${(error as Error).message.split('\n')[0]}`,
        );
      }
      const folder = outputFolder(item, { poster: settings.image_max_size, q: settings.image_quality });
      const videoKey = `${folder}/video${ext}`;
      const posterKey = `${folder}/${rendering.poster.name}`;
      const stored = await this.storage.put(videoKey, createReadStream(output), {
        contentType: item.mimeType ?? 'video/mp4',
      });
      const poster = await this.storage.put(posterKey, rendering.poster.data, { contentType: 'image/jpeg' });
      const result: MediaResult = {
        id: item.id,
        originalKey: item.originalKey,
        crop: item.crop,
        status: 'ready',
        storageKey: videoKey,
        thumbnailKey: posterKey,
        croppedPreviewKey: null,
        width: rendering.width,
        height: rendering.height,
        durationSeconds: rendering.durationSeconds,
        variants: [
          {
            key: videoKey,
            format: 'video',
            width: rendering.width,
            height: rendering.height,
            size: stored.size,
          },
          {
            key: posterKey,
            format: 'poster',
            width: rendering.poster.width,
            height: rendering.poster.height,
            size: poster.size,
          },
        ],
      };
      return { result, written: [videoKey, posterKey] };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
