import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Text the servers send: worth compressing once at build time instead of on every request. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|xml|txt|webmanifest)$/;

/**
 * Writes `name.br` (brotli, quality 11) and `name.gz` (gzip -9) next to every text file in
 * `dir`, for nginx's gzip_static and the gateway's embedded mode. A twin that would not be
 * smaller is not written (the server then sends the file itself).
 */
export async function precompressDir(dir: string): Promise<{ files: number; bytes: number; br: number }> {
  const names = (await readdir(dir, { recursive: true })).filter((name) => COMPRESSIBLE.test(name));
  const totals = { files: 0, bytes: 0, br: 0 };
  await Promise.all(
    names.map(async (name) => {
      const file = join(dir, name);
      const data = await readFile(file);
      const [br, gz] = await Promise.all([
        brotli(data, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          },
        }),
        gzipAsync(data, { level: 9 }),
      ]);
      if (br.length < data.length) await writeFile(`${file}.br`, br);
      if (gz.length < data.length) await writeFile(`${file}.gz`, gz);
      totals.files++;
      totals.bytes += data.length;
      totals.br += Math.min(br.length, data.length);
    }),
  );
  return totals;
}

/** The Vite plugin: precompresses the build output once it is written. */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'blog-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const { files, bytes, br } = await precompressDir(outDir);
      this.info?.(`precompressed ${files} files: ${bytes} bytes, ${br} as brotli`);
    },
  };
}
