import { availableParallelism } from 'node:os';
import sharp from 'sharp';
import { configureSharp } from './sharp-settings.js';

describe("libvips' settings for the media worker", () => {
  it('keeps no decoded images, and shares the cores among the pictures processed at once', () => {
    configureSharp(2);
    const cache = sharp.cache();
    expect([cache.memory.max, cache.files.max, cache.items.max]).toEqual([0, 0, 0]);
    expect(sharp.concurrency()).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
    configureSharp(64);
    expect(sharp.concurrency()).toBe(1);
  });
});
