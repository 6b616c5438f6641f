// Pages and feeds benchmark: post and listing pages with their share tags, the
// sitemap over 100,000 posts, the feed, and what compression saves on the wire.
import autocannon from 'autocannon';
import { request } from 'node:http';
import { seedPosts } from '../seed.mjs';
import { sequential, startSeedableStack } from './stack.mjs';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);

function cannon(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 20, duration: DURATION }, (error, result) => {
      if (error) return reject(error);
      resolve({
        requestsPerSecond: Math.round(result.requests.average),
        p50ms: result.latency.p50,
        p99ms: result.latency.p99,
        non2xx: result.non2xx,
      });
    });
  });
}

/** Bytes on the wire and milliseconds for one GET with this Accept-Encoding (no decompression). */
function wire(url, encoding) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    request(url, { headers: encoding ? { 'accept-encoding': encoding } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () =>
        resolve({ status: res.statusCode, bytes, ms: Math.round(performance.now() - started) }),
      );
    })
      .on('error', reject)
      .end();
  });
}

async function sizes(url) {
  const [plain, gzip, br] = await Promise.all([wire(url), wire(url, 'gzip'), wire(url, 'gzip, deflate, br')]);
  return { plain: plain.bytes, gzip: gzip.bytes, br: br.bytes };
}

export async function benchSeo() {
  const stack = await startSeedableStack('seo');
  const { databaseUrl } = stack;
  try {
    const results = { seededPosts: 100_000, seedSeconds: Math.round(await seedPosts(databaseUrl, 100_000)) };
    const base = stack.baseUrl;
    const sample = await (await fetch(`${base}/api/posts?limit=100&page=7`)).json();
    // Each request a different post: the one posts call per page is really made.
    results.postPageSpread = await sequential(200, async (i) => {
      const response = await fetch(`${base}${sample[i % sample.length].url}`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`post page answered ${response.status}`);
    });
    results.postPage = await cannon(`${base}${sample[0].url}`);
    results.listingPage = await cannon(`${base}/garage/automobiles/car-one`);
    results.notFound = await wire(`${base}/garage/automobiles/no-such-post`);
    results.rss = await wire(`${base}/rss.xml`, 'gzip, deflate, br');
    // The sitemap: the index, then each file in full (gzip, as crawlers ask).
    const index = await wire(`${base}/sitemap.xml`, 'gzip');
    results.sitemap = { index };
    for (let n = 1; n <= 3; n++) results.sitemap[`file${n}`] = await wire(`${base}/sitemap-${n}.xml`, 'gzip');
    const html = await (await fetch(`${base}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)[1];
    results.bytes = {
      entryScript: await sizes(`${base}${script}`),
      postPage: await sizes(`${base}${sample[0].url}`),
      postsApiPage: await sizes(`${base}/api/posts?limit=30`),
      rss: await sizes(`${base}/rss.xml`),
    };
    return results;
  } finally {
    await stack.stop();
  }
}
