import { availableParallelism } from 'node:os';
import sharp from 'sharp';

/**
 * libvips' process-wide settings, the same in every topology (one process under `npm start`, a
 * container of its own in compose and Kubernetes). Its cache would keep up to 50 MB of decoded
 * images long after a photo is done, and each picture is read once. MEDIA_CONCURRENCY pictures
 * at once share the cores: by default libvips runs a thread per core for each, and each thread
 * holds its own buffers.
 */
export function configureSharp(mediaConcurrency: number): void {
  sharp.cache(false);
  sharp.concurrency(Math.max(1, Math.floor(availableParallelism() / mediaConcurrency)));
}
