import type { UploadedFile } from '@blog/contracts';
import { MediaFileRefused, storeMediaOriginal, type ObjectStorage } from '@blog/server-kit';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

export interface FetchLimits {
  /** Per try, headers and body together. */
  timeoutMs: number;
  tries: number;
  /** Downloads at once, over the whole import. */
  concurrency: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { timeoutMs: 60_000, tries: 3, concurrency: 4 };
const MAX_REDIRECTS = 5;

/** A download that failed for good (the message names why). */
export class MediaFetchError extends Error {}

/**
 * Downloads a source's pictures and videos into storage as originals, under the same rules
 * as an upload (storeMediaOriginal: content check, HEIC refused, 100 MB): only http(s), also
 * after each redirect (followed by hand, at most 5), a timeout per try, up to `tries` tries
 * for network errors and 5xx answers, and at most `concurrency` downloads at once.
 */
export class MediaFetcher {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly storage: ObjectStorage,
    private readonly limits: FetchLimits = DEFAULT_FETCH_LIMITS,
  ) {}

  async fetch(url: string, key: (ext: string) => string): Promise<UploadedFile> {
    await this.slot();
    try {
      let last: Error = new MediaFetchError('not tried');
      for (let attempt = 1; attempt <= this.limits.tries; attempt++) {
        try {
          return await this.once(url, key);
        } catch (error) {
          last = error as Error;
          // A refused file or a 4xx will not change on a second try.
          if (
            error instanceof MediaFileRefused ||
            (error instanceof MediaFetchError && !/^HTTP 5|timed out|network/.test(error.message))
          )
            break;
          if (attempt < this.limits.tries) await new Promise((r) => setTimeout(r, 250 * 2 ** (attempt - 1)));
        }
      }
      throw last instanceof MediaFileRefused ? new MediaFetchError(last.message) : last;
    } finally {
      this.release();
    }
  }

  private async once(url: string, key: (ext: string) => string): Promise<UploadedFile> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.limits.timeoutMs);
    try {
      let current = url;
      for (let hop = 0; ; hop++) {
        let parsed: URL;
        try {
          parsed = new URL(current);
        } catch {
          throw new MediaFetchError(`not a URL: ${current}`);
        }
        if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
          throw new MediaFetchError(`only http and https addresses are fetched (${parsed.protocol})`);
        let response: Response;
        try {
          response = await fetch(parsed, { redirect: 'manual', signal: controller.signal });
        } catch (error) {
          throw new MediaFetchError(
            controller.signal.aborted ? 'timed out' : `network error: ${(error as Error).message}`,
          );
        }
        if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
          await response.body?.cancel();
          if (hop >= MAX_REDIRECTS) throw new MediaFetchError('too many redirects');
          current = new URL(response.headers.get('location')!, parsed).toString();
          continue;
        }
        if (!response.ok || !response.body) {
          await response.body?.cancel();
          throw new MediaFetchError(`HTTP ${response.status}`);
        }
        const name = decodeURIComponent(parsed.pathname.split('/').pop() || 'file').slice(0, 255);
        const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
        try {
          return await storeMediaOriginal(this.storage, body, {
            name,
            declaredType: response.headers.get('content-type') ?? undefined,
            signal: controller.signal,
            key,
          });
        } catch (error) {
          body.destroy();
          if (controller.signal.aborted) throw new MediaFetchError('timed out');
          throw error;
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private async slot(): Promise<void> {
    if (this.active < this.limits.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
