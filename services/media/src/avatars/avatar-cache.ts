import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  outboundFetch,
  OutboundAllowList,
  OutboundFetchError,
  RpcError,
  type ObjectStorage,
  type OutboundFetchOptions,
} from '@blog/server-kit';
import sharp from 'sharp';

/** Where cached avatars live in storage: public (served under /uploads), one folder per remote URL. */
export const AVATAR_FOLDER = 'media/avatars';

/** What caching one avatar may cost, whatever the remote server sends. */
export interface AvatarLimits {
  /** The whole fetch: DNS, connect, redirects and body. */
  timeoutMs: number;
  /** The body; a larger Content-Length fails before any byte is read. */
  maxBytes: number;
  /** Pixels the decoder accepts (a 30000x30000 PNG of a few KB is refused before decoding). */
  maxPixels: number;
  /** Decoding and re-encoding. */
  decodeSeconds: number;
  /** A copy younger than this is answered without a fetch. */
  freshSeconds: number;
}

export const AVATAR_LIMITS: AvatarLimits = {
  timeoutMs: 5_000,
  maxBytes: 2 * 1024 * 1024,
  maxPixels: 4096 * 4096,
  decodeSeconds: 3,
  freshSeconds: 7 * 24 * 3600,
};

/** The stored avatar's edge: square, cropped to cover. */
export const AVATAR_SIZE = 96;

/** Where cached Reader pictures live: public like avatars, one folder per remote URL. */
export const PICTURE_FOLDER = 'media/pictures';
/** A Reader picture's stored width at most (never enlarged). */
export const PICTURE_WIDTH = 1280;
/** A post's picture may be larger than an avatar; it is kept as long as an entry shows it. */
export const PICTURE_LIMITS: AvatarLimits = {
  timeoutMs: 10_000,
  maxBytes: 10 * 1024 * 1024,
  maxPixels: 8192 * 8192,
  decodeSeconds: 5,
  freshSeconds: Number.POSITIVE_INFINITY,
};

/** What is cached: an avatar (a 96 px square) or a Reader picture (up to 1280 px wide). */
export type CachedImageKind = 'avatar' | 'picture';

/** Types fetched (SVG never: it is a document that can script and fetch, not pixels). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
/** What sharp must find in the bytes, whatever the Content-Type said (AVIF reads as heif). */
const DECODED_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp', 'heif']);

export interface AvatarCacheOptions {
  /** Default 'avatar'. */
  kind?: CachedImageKind;
  /** OUTBOUND_ALLOW: private hosts the fetch may reach (none by default). */
  allow?: OutboundAllowList;
  limits?: Partial<AvatarLimits>;
  /** The clock (tests move it past the freshness window). */
  now?: () => number;
  /** Name resolution for the outbound fetcher (tests only). */
  resolve?: OutboundFetchOptions['resolve'];
}

/** Why an image was not cached, in words the caller may log or show. */
const failureOf = (kind: CachedImageKind) => (reason: string) =>
  RpcError.unprocessable(`The ${kind} was not cached: ${reason}`);

/**
 * A remote author's avatar, kept here so pages never hot-link another server: fetched
 * through the outbound fetcher (private addresses refused unless OUTBOUND_ALLOW names them,
 * each redirect checked again, time and bytes capped), decoded with a pixel limit and stored
 * as our own 96x96 WebP (the remote bytes are never stored or served). Each copy gets a new
 * key (`media/avatars/<sha256 of the URL>/<fetched at>.webp`: keys never change content, and
 * /uploads caches them as immutable); the newest is answered for a week, then fetched again
 * (an older copy stays for the comments that name it, and answers when the new fetch fails).
 */
export class AvatarCache {
  private readonly limits: AvatarLimits;
  private readonly allow: OutboundAllowList;
  private readonly now: () => number;
  private readonly kind: CachedImageKind;
  private readonly failure: (reason: string) => RpcError;
  /** Callers asking for one URL at once share one fetch. */
  private readonly running = new Map<string, Promise<string>>();

  constructor(
    private readonly storage: ObjectStorage,
    private readonly options: AvatarCacheOptions = {},
  ) {
    this.kind = options.kind ?? 'avatar';
    this.failure = failureOf(this.kind);
    this.limits = { ...(this.kind === 'avatar' ? AVATAR_LIMITS : PICTURE_LIMITS), ...options.limits };
    this.allow = options.allow ?? new OutboundAllowList();
    this.now = options.now ?? Date.now;
  }

  /** The stored copy's key (shown as /uploads/{key}); an RpcError (422) naming why when there is none. */
  cache(url: string): Promise<string> {
    const href = parseUrl(url);
    const running = this.running.get(href);
    if (running) return running;
    const task = this.fetchOrReuse(href).finally(() => this.running.delete(href));
    this.running.set(href, task);
    return task;
  }

  private async fetchOrReuse(href: string): Promise<string> {
    const base = this.kind === 'avatar' ? AVATAR_FOLDER : PICTURE_FOLDER;
    const folder = `${base}/${createHash('sha256').update(href).digest('hex')}`;
    const newest = (await this.storage.list(`${folder}/`)).at(-1);
    const fetchedAt = newest ? Number(/\/(\d+)\.webp$/.exec(newest)?.[1]) : NaN;
    const nowSeconds = Math.floor(this.now() / 1000);
    if (newest && nowSeconds - fetchedAt < this.limits.freshSeconds) return newest;
    let webp: Buffer;
    try {
      webp = await this.render(await this.download(href));
    } catch (error) {
      // A server down for a while keeps its authors' faces: the older copy answers.
      if (newest) return newest;
      throw error;
    }
    // Fixed width, so the listing's order is the order of the fetches.
    const key = `${folder}/${String(nowSeconds).padStart(12, '0')}.webp`;
    await this.storage.put(key, webp, { contentType: 'image/webp' });
    return key;
  }

  /** The body, within the time and byte limits, of an image type; the fetcher's refusals reworded. */
  private async download(href: string): Promise<Buffer> {
    let response;
    try {
      response = await outboundFetch(href, {
        allow: this.allow,
        timeoutMs: this.limits.timeoutMs,
        maxBytes: this.limits.maxBytes,
        maxRedirects: 3,
        accept: [...IMAGE_TYPES].join(', '),
        resolve: this.options.resolve,
      });
    } catch (error) {
      throw this.failure(fetchProblem(error, this.limits.maxBytes));
    }
    const type = String(response.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (response.status !== 200) {
      response.body.destroy();
      throw this.failure(`its server answered ${response.status}`);
    }
    if (!IMAGE_TYPES.has(type)) {
      response.body.destroy();
      throw this.failure(
        `it is not a PNG, JPEG, GIF, WebP or AVIF image (${type.slice(0, 100) || 'no type'})`,
      );
    }
    try {
      return await readAll(response.body);
    } catch (error) {
      throw this.failure(fetchProblem(error, this.limits.maxBytes));
    }
  }

  /** Our own encoding: upright, cropped square, no metadata; the decoder bounded in pixels and time. */
  private async render(input: Buffer): Promise<Buffer> {
    try {
      const image = sharp(input, {
        limitInputPixels: this.limits.maxPixels,
        failOn: 'error',
        animated: false,
        sequentialRead: true,
      });
      const meta = await image.metadata();
      if (!meta.format || !DECODED_FORMATS.has(meta.format))
        throw this.failure(
          `its bytes are not a PNG, JPEG, GIF, WebP or AVIF image (${meta.format ?? 'unknown'})`,
        );
      if ((meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0) > this.limits.maxPixels)
        throw this.failure(`it has more than ${this.limits.maxPixels} pixels`);
      return await image
        .rotate()
        .resize(
          this.kind === 'avatar'
            ? { width: AVATAR_SIZE, height: AVATAR_SIZE, fit: 'cover' }
            : { width: PICTURE_WIDTH, withoutEnlargement: true },
        )
        .webp({ quality: 80 })
        .timeout({ seconds: this.limits.decodeSeconds })
        .toBuffer();
    } catch (error) {
      if (error instanceof RpcError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (/pixel limit/i.test(message))
        throw this.failure(`it has more than ${this.limits.maxPixels} pixels`);
      if (/timeout/i.test(message)) throw this.failure('decoding it took too long');
      throw this.failure('its bytes are not a readable image');
    }
  }
}

/** Removes cached Reader pictures (keys under PICTURE_FOLDER only; anything else is refused). */
export async function dropPictures(storage: ObjectStorage, keys: string[]): Promise<number> {
  const ours = keys.filter((key) => key.startsWith(`${PICTURE_FOLDER}/`) && !key.includes('..'));
  if (ours.length > 0) await storage.deleteMany(ours);
  return ours.length;
}

/** An absolute http(s) URL without credentials, as the fetcher will see it; a 400 otherwise. */
function parseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw RpcError.badRequest('url must be an http(s) URL', 'url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw RpcError.badRequest('url must be an http(s) URL', 'url');
  parsed.hash = '';
  return parsed.href;
}

function fetchProblem(error: unknown, maxBytes: number): string {
  if (error instanceof OutboundFetchError) {
    if (error.kind === 'timeout') return 'its server took too long';
    if (error.kind === 'too-large')
      return `it is larger than ${Math.round((maxBytes / 1024 / 1024) * 10) / 10} MB`;
    return error.message;
  }
  return 'network error';
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
