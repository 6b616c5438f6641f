import { FileErrors, MAX_FILE_BYTES, type UploadedFile } from '@blog/contracts';
import {
  MediaFileRefused,
  OutboundAllowList,
  OutboundFetchError,
  outboundFetch,
  storeMediaOriginal,
  type ObjectStorage,
  type OutboundResponse,
} from '@blog/server-kit';

export interface FetchLimits {
  /** Per try, headers and body together. */
  timeoutMs: number;
  tries: number;
  /** Downloads at once, over the whole import. */
  concurrency: number;
}

/** What the outbound fetcher may reach and how it names the blog. */
export interface MediaFetchPolicy {
  /** OUTBOUND_ALLOW: private addresses an import may fetch from (default none). */
  allow?: OutboundAllowList;
  /** Asked per download: the site's title may change while an import runs. */
  userAgent?: () => string;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { timeoutMs: 60_000, tries: 3, concurrency: 4 };
const MAX_REDIRECTS = 5;

/** A download that failed for good (the message names why, and is safe to show). */
export class MediaFetchError extends Error {
  constructor(
    message: string,
    /** A later try may bring it: a 5xx, a timeout, a network that failed. */
    readonly retryable = false,
  ) {
    super(message);
  }
}

/**
 * Downloads a source's pictures and videos into storage as originals, under the same rules
 * as an upload (storeMediaOriginal: content check, HEIC refused, 100 MB), through the
 * outbound fetcher (http(s) only, no private address unless OUTBOUND_ALLOW names it, each
 * of at most 5 redirects checked again): a timeout per try, up to `tries` tries for network
 * errors, timeouts and 5xx answers, and at most `concurrency` downloads at once. A refused
 * and an unreachable address read the same in the report, so it maps no network.
 */
export class MediaFetcher {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly storage: ObjectStorage,
    private readonly limits: FetchLimits = DEFAULT_FETCH_LIMITS,
    private readonly policy: MediaFetchPolicy = {},
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
          // A refused file, a refused address or a 4xx will not change on a second try.
          if (error instanceof MediaFileRefused || (error instanceof MediaFetchError && !error.retryable))
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
    let response: OutboundResponse;
    try {
      response = await outboundFetch(url, {
        allow: this.policy.allow,
        userAgent: this.policy.userAgent?.(),
        accept: 'image/*, video/*;q=0.9, */*;q=0.1',
        timeoutMs: this.limits.timeoutMs,
        // One byte over the upload limit reaches storeMediaOriginal, whose message says so.
        maxBytes: MAX_FILE_BYTES + 1,
        maxRedirects: MAX_REDIRECTS,
      });
    } catch (error) {
      throw fetchFailure(error, fileName(url));
    }
    if (response.status < 200 || response.status >= 300) {
      response.body.destroy();
      throw new MediaFetchError(`HTTP ${response.status}`, response.status >= 500);
    }
    const name = fileName(response.url);
    // The upload to storage stops with the download (a timeout or a dropped connection).
    const stopped = new AbortController();
    response.body.once('error', () => stopped.abort());
    try {
      return await storeMediaOriginal(this.storage, response.body, {
        name,
        declaredType: headerValue(response.headers['content-type']),
        signal: stopped.signal,
        key,
      });
    } catch (error) {
      const cause = response.body.errored ?? error;
      response.body.destroy();
      if (cause instanceof OutboundFetchError) throw fetchFailure(cause, name);
      throw error;
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

/** The report's words for an outbound failure (never the target's own answer). */
function fetchFailure(error: unknown, name: string): Error {
  if (!(error instanceof OutboundFetchError)) return error as Error;
  if (error.kind === 'too-large') return new MediaFileRefused(413, FileErrors.tooLarge(name));
  return new MediaFetchError(error.message, error.retryable);
}

/** The file's name from the last segment of the address that answered. */
function fileName(url: string): string {
  let last: string;
  try {
    last = new URL(url).pathname.split('/').pop() || 'file';
  } catch {
    return 'file';
  }
  try {
    return decodeURIComponent(last).slice(0, 255);
  } catch {
    return last.slice(0, 255); // a stray % in the address
  }
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
