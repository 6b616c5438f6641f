// `npm run bench -- topology`: the production topology (`npm run stack:prod`) with one and
// with two posts replicas. Requests/s and p99 at 50 connections for GET /api/posts?limit=15
// and a post page, through nginx with its microcache, through nginx without it and straight
// to the gateway, beside nginx serving a static 20 KB file, all in one run. The gateway's own
// 1 s public cache (PUBLIC_CACHE_TTL_MS) stays on, as in production. Build first.
import autocannon from 'autocannon';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProdStack } from '../prod-stack.mjs';
import { seedPosts } from '../seed.mjs';

const DURATION = Number(process.env.BENCH_SECONDS ?? 6);

function cannon(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 50, duration: DURATION }, (error, result) => {
      if (error) return reject(error);
      resolve({
        requestsPerSecond: Math.round(result.requests.average),
        p99ms: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors,
      });
    });
  });
}

export async function benchTopology() {
  // A static root for the comparison file; pages and the API still go to the gateway.
  const staticRoot = await mkdtemp(join(tmpdir(), 'bench-static-'));
  await chmod(staticRoot, 0o755);
  await writeFile(join(staticRoot, 'static-20k.txt'), 'x'.repeat(20 * 1024));
  const results = { connections: 50, seconds: DURATION };
  try {
    for (const replicas of [1, 2]) {
      const stack = await startProdStack({ postsReplicas: replicas });
      try {
        await seedPosts(stack.databaseUrl, 1000);
        const cached = await stack.startNginx({ microcache: true, root: staticRoot });
        const plain = await stack.startNginx({ microcache: false, root: staticRoot });
        const row = { staticFile20k: await cannon(`${cached.url}/static-20k.txt`) };
        for (const [name, base] of [
          ['nginxMicrocache', cached.url],
          ['nginxNoCache', plain.url],
          ['gatewayDirect', stack.gatewayUrl],
        ]) {
          row[name] = {
            list: await cannon(`${base}/api/posts?limit=15`),
            postPage: await cannon(`${base}/post/500`),
          };
        }
        results[`postsReplicas${replicas}`] = row;
      } finally {
        await stack.stop();
      }
    }
  } finally {
    await rm(staticRoot, { recursive: true, force: true });
  }
  return results;
}
