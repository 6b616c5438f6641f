// The servers' runtime settings under `npm start`: V8's heap, glibc's allocator and Node's compile
// cache. Each is a default the operator's own environment overrides.
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

/** The environment the launcher adds for the servers' process(es) in `mode` ('one' or 'per-service'). */
export function serverRuntimeEnv(mode, root) {
  return {
    // A small young generation keeps each idle process near 100 MB instead of 130+; the one
    // process that does the gateway's and the posts service's work for every page gets the 2 x
    // 2 MB the two had (with 2 MB, a render's objects outlived their young generation and filled
    // the old one: more full collections, more CPU). The heap limit is the one a 1 GB server gets
    // by itself: V8 sizes it from the machine's memory, and on a larger one lets the old
    // generation grow to 4 times what is live before a full collection (50 readers left the
    // servers' process 100 MB of garbage and half-empty pages for minutes); at 384 MB it grows
    // by about a third.
    NODE_OPTIONS:
      process.env.NODE_OPTIONS ?? `--max-semi-space-size=${mode === 'one' ? 4 : 2} --max-old-space-size=384`,
    // glibc gives threads that allocate at once arenas of their own (up to 8 per core), each
    // keeping memory once freed; libvips and libuv run several threads.
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    // Blocks of 256 KiB and more (sharp's pixels, brotli's tables, large Buffers) are mapped and
    // unmapped on their own, so they go back to the system when freed: with glibc's own sliding
    // threshold an import and an upload left 310-330 MB behind; with this, 227-232 MB. Not lower:
    // at 32 KiB every zlib stream (four 64 KiB blocks) and every page's Buffer was mapped afresh,
    // and a page render cost the gateway 2-3 ms more CPU (`npm run bench -- memory`, `-- pages`).
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '262144',
    // Huge pages where the kernel offers them on request: each sign-in's argon2 takes 7 MiB
    // (services/auth/src/users/password-hasher.ts), mapped afresh every time; in 4 KiB pages that
    // costs 3-5 ms more CPU a sign-in (with the 19 MiB of earlier settings, 17 ms: 50 instead of 33).
    GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? 'glibc.malloc.hugetlb=1',
    ...compileCache(root),
  };
}

/**
 * V8 keeps the compiled code of every module it loads (Nest, TypeORM, the services): a second
 * start spends about 40 % less CPU loading them. Kept beside the code it compiles (keyed by Node
 * version and file contents), never in a folder others can write; none when node_modules is
 * read-only (Node spins on a cache folder it cannot create).
 */
function compileCache(root) {
  if (process.env.NODE_COMPILE_CACHE !== undefined) return {};
  try {
    accessSync(join(root, 'node_modules'), constants.W_OK);
    return { NODE_COMPILE_CACHE: join(root, 'node_modules', '.cache', 'node-compile-cache') };
  } catch {
    return {};
  }
}
