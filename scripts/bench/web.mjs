// `npm run bench -- web`: what a visitor downloads and how fast pages paint, with 10,000
// seeded posts: compressed JavaScript per page (Chromium's own byte counts), Largest
// Contentful Paint, and Lighthouse 12 scores (desktop and mobile) for the home page, a
// category page and a post page. Lighthouse runs through `npx lighthouse@12` (fetched from
// the npm registry on first use) with Debian's Chromium (CHROME_PATH).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { benchTargets } from './measure.mjs';
import { ROOT, startSeedableStack } from './stack.mjs';

const run = promisify(execFile);
const { chromium } = createRequire(join(ROOT, 'e2e/package.json'))('playwright-core');
const CHROME = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const ADMIN = { username: 'bench-admin', password: 'bench-password-12345' };

async function createShowcasePost(baseUrl) {
  const login = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const { token } = await login.json();
  const sharp = createRequire(join(ROOT, 'package.json'))('sharp');
  const photo = await sharp({ create: { width: 1600, height: 1000, channels: 3, background: '#2a6fa0' } })
    .composite([
      {
        input: Buffer.from(
          '<svg width="1600" height="1000"><circle cx="800" cy="500" r="300" fill="white"/></svg>',
        ),
      },
    ])
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.set('title', 'A post with a photo');
  form.set('content', 'A day in the garage with the camera. '.repeat(20));
  form.set('category', 'Garage');
  form.set('submenu1', 'Motorcycles');
  form.set('tags', 'garage, photo');
  // Two pictures: the carousel's first shows at once, the second waits for its turn.
  form.append('files', new Blob([photo], { type: 'image/jpeg' }), 'photo.jpg');
  form.append('files', new Blob([photo], { type: 'image/jpeg' }), 'photo-2.jpg');
  const created = await (
    await fetch(`${baseUrl}/api/posts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    })
  ).json();
  for (let i = 0; i < 120; i++) {
    const post = await (
      await fetch(`${baseUrl}/api/posts/${created.id}`, { headers: { Authorization: `Bearer ${token}` } })
    ).json();
    if (post.mediaReady) return post.url;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the showcase post was not processed in 30 s');
}

/** Compressed bytes of JavaScript and of HTML a fresh visitor downloads, and the page's LCP. */
async function pageWeight(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts = [];
  const documents = [];
  page.on('requestfinished', (request) => {
    if (request.resourceType() === 'script') scripts.push(request);
    if (request.resourceType() === 'document') documents.push(request);
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  let jsBytes = 0;
  for (const request of scripts) jsBytes += (await request.sizes()).responseBodySize;
  let htmlBytes = 0;
  for (const request of documents) htmlBytes += (await request.sizes()).responseBodySize;
  const lcpMs = await page.evaluate(
    () =>
      new Promise((resolve) => {
        new globalThis.PerformanceObserver((list) => {
          const entries = list.getEntries();
          resolve(Math.round(entries[entries.length - 1].startTime));
        }).observe({ type: 'largest-contentful-paint', buffered: true });
      }),
  );
  await context.close();
  return {
    jsKB: Math.round(jsBytes / 102.4) / 10,
    jsBytes,
    htmlKB: Math.round(htmlBytes / 102.4) / 10,
    lcpMs,
  };
}

/** Lighthouse's figures; a run Lighthouse itself gives up on (NO_NAVSTART, seen now and then) is tried again. */
async function lighthouse(url, preset, attempts = 3) {
  try {
    return await lighthouseOnce(url, preset);
  } catch (error) {
    if (attempts <= 1 || !String(error.stderr ?? error.message).includes('run Lighthouse again')) throw error;
    return lighthouse(url, preset, attempts - 1);
  }
}

async function lighthouseOnce(url, preset) {
  const dir = await mkdtemp(join(tmpdir(), 'lh-'));
  const out = join(dir, 'report.json');
  try {
    await run(
      'npx',
      [
        '-y',
        'lighthouse@12',
        url,
        '--quiet',
        '--output=json',
        `--output-path=${out}`,
        `--chrome-flags=${CHROME_FLAGS.join(' ')}`,
        ...(preset === 'desktop' ? ['--preset=desktop'] : []),
      ],
      { env: { ...process.env, CHROME_PATH: CHROME }, maxBuffer: 64 * 1024 * 1024, timeout: 180_000 },
    );
    const report = JSON.parse(await readFile(out, 'utf8'));
    const score = (id) => Math.round(report.categories[id].score * 100);
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      seo: score('seo'),
      lcpMs: Math.round(report.audits['largest-contentful-paint'].numericValue),
      tbtMs: Math.round(report.audits['total-blocking-time'].numericValue),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A stack of the checkout at `root` with 10,000 seeded posts and the showcase post. */
async function startWebStack(target) {
  const stack = await startSeedableStack(
    `web-${target.name.replace(/\W+/g, '-')}`,
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
    target.root,
  );
  // Each checkout seeds with its own seeder: the schema differs between revisions.
  const { seedPosts } = await import(pathToFileURL(join(target.root, 'scripts/seed.mjs')).href);
  await seedPosts(stack.databaseUrl, 10_000);
  const postPath = await createShowcasePost(stack.baseUrl);
  return { stack, pages: { home: '/', category: '/garage/motorcycles', post: postPath } };
}

/**
 * This build's figures; with BENCH_BASE=<revision> that revision's too, each page measured
 * on one build right after the other (the machine is shared: runs far apart differ).
 */
export async function benchWeb() {
  const targets = benchTargets();
  const browser = await chromium.launch({ executablePath: CHROME, args: CHROME_FLAGS.slice(1) });
  const running = [];
  try {
    for (const target of targets) running.push({ target, ...(await startWebStack(target)) });
    const results = Object.fromEntries(targets.map((t) => [t.name, {}]));
    for (const name of ['home', 'category', 'post']) {
      for (const { target, stack, pages } of running) {
        const url = `${stack.baseUrl}${pages[name]}`;
        results[target.name][name] = {
          path: pages[name],
          ...(await pageWeight(browser, url)),
          desktop: await lighthouse(url, 'desktop'),
          mobile: await lighthouse(url, 'mobile'),
        };
      }
    }
    return targets.length === 1 ? results['this build'] : results;
  } finally {
    await browser.close();
    for (const { stack } of running) await stack.stop();
  }
}
