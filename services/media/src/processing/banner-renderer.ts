import { Inject, Injectable } from '@nestjs/common';
import { BANNER_FOLDER, type BannerRendering } from '@blog/contracts';
import { RpcError, type ObjectStorage } from '@blog/server-kit';
import { randomUUID } from 'node:crypto';
import { SettingsService } from '../settings/settings.service.js';
import { STORAGE } from '../tokens.js';
import { renderImage, UnprocessableMediaError } from './image-processor.js';
import { CONTENT_TYPES } from './media-worker.js';

/** A banner is at most this wide: sharp on a wide, high-density screen, not a camera's full size. */
const BANNER_MAX_WIDTH = 2400;
/** An uploaded original larger than this is not read into memory. */
const MAX_ORIGINAL_BYTES = 100 * 1024 * 1024;

/**
 * The site banner, processed like any image (upright, without metadata, WebP, AVIF and the
 * original's format at a few widths, the admin's quality), into its own folder
 * media/site/banner-… so the gateway can remove the previous one whole.
 */
@Injectable()
export class BannerRenderer {
  constructor(
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    private readonly settings: SettingsService,
  ) {}

  async render(originalKey: string): Promise<BannerRendering> {
    const original = await this.storage.get(originalKey);
    if (!original) throw RpcError.badRequest('the uploaded banner is missing');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of original.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_ORIGINAL_BYTES) throw RpcError.badRequest('the banner image is too large');
      chunks.push(chunk as Buffer);
    }
    const settings = await this.settings.get();
    let rendering;
    try {
      rendering = await renderImage(
        Buffer.concat(chunks),
        { ...settings, image_auto_optimize: true, image_max_size: BANNER_MAX_WIDTH },
        null,
      );
    } catch (error) {
      if (error instanceof UnprocessableMediaError)
        throw RpcError.badRequest(`The banner is ${error.message}`);
      throw error;
    }
    const folder = `${BANNER_FOLDER}${randomUUID()}`;
    const keys: string[] = [];
    try {
      for (const file of rendering.variants) {
        const key = `${folder}/${file.name}`;
        await this.storage.put(key, file.data, { contentType: CONTENT_TYPES[file.format]! });
        keys.push(key);
      }
    } catch (error) {
      await this.storage.deleteMany(keys).catch(() => undefined);
      throw error;
    }
    return {
      path: this.storage.publicUrl(`${folder}/${rendering.main.name}`),
      folder,
      keys,
      width: rendering.width,
      height: rendering.height,
    };
  }
}
