// Writing benchmark: how long the renderer takes on a 5,000-word post, and what
// reads cost: a post page's HTML and JavaScript on the wire, and CPU time per 1,000 reads of
// a post and of the home page's list, cached and uncached. With BENCH_BASE=<git revision> the same figures come from that
// revision too, built in a worktree and run beside this build on other ports, the load runs
// alternating between the two (the machine is shared: figures from different runs differ).
import { request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alternating, benchTargets, loadCost, stackPids } from './measure.mjs';
import { percentile, ROOT, startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };

/** A long post as people write them: headings, paragraphs with emphasis and links, lists, a table, code. */
export function longMarkdown(words) {
  const sentence = (i) =>
    `The **roadster** needed new tyres number ${i}, so I went to [the shop](https://example.com/shop/${i}) and asked about _pressure_ and \`torque\`.`;
  const blocks = [];
  let count = 0;
  for (let i = 0; count < words; i++) {
    if (i % 12 === 0) blocks.push(`## Part ${i / 12 + 1}`);
    if (i % 12 === 5) blocks.push('- front left\n- front right\n- [x] rear left\n- [ ] rear right');
    if (i % 12 === 9) blocks.push('| Tyre | Bar |\n|:--|--:|\n| Front | 2.2 |\n| Rear | 2.4 |');
    if (i % 24 === 11) blocks.push('```\ntorque: 110 Nm\npressure: 2.2 bar\n```');
    const paragraph = [sentence(i), sentence(i + 1), sentence(i + 2)].join(' ');
    blocks.push(paragraph);
    count +=
      paragraph.split(/\s+/).length +
      (i % 12 === 0 ? 2 : 0) +
      (i % 12 === 5 ? 8 : 0) +
      (i % 12 === 9 ? 8 : 0);
  }
  return blocks.join('\n\n');
}

async function renderTimes(root) {
  const { renderMarkdown } = await import(
    pathToFileURL(join(root, 'services/posts/dist/content/markdown.js')).href
  );
  const markdown = longMarkdown(5000);
  const words = renderMarkdown(markdown).words;
  for (let i = 0; i < 5; i++) renderMarkdown(markdown); // warm up the JIT
  const times = [];
  for (let i = 0; i < 100; i++) {
    const started = performance.now();
    renderMarkdown(markdown);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = (v) => Math.round(v * 100) / 100;
  return {
    words,
    markdownBytes: markdown.length,
    p50ms: ms(percentile(times, 50)),
    p95ms: ms(percentile(times, 95)),
  };
}

function wireBytes(url, encoding = 'br') {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'accept-encoding': encoding } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
    })
      .on('error', reject)
      .end();
  });
}

/** A stack of the checkout at `root`, with 200 seeded posts and one of `content` (and its page's weight). */
async function startWithPost(name, root, content) {
  const stack = await startSeedableStack(
    name,
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
    root,
  );
  const login = await fetch(`${stack.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const { token } = await login.json();
  // Each checkout seeds with its own seeder: the schema differs between revisions.
  const { seedPosts } = await import(pathToFileURL(join(root, 'scripts/seed.mjs')).href);
  await seedPosts(stack.databaseUrl, 200);
  const form = new FormData();
  for (const [key, value] of Object.entries({
    title: 'Roadster weekend',
    content,
    category: 'Garage',
    submenu1: 'Automobiles',
  }))
    form.set(key, value);
  const created = await fetch(`${stack.baseUrl}/api/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const post = await created.json();
  const children = await stackPids(stack);
  const html = await (await fetch(`${stack.baseUrl}${post.url}`)).text();
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)[1];
  return {
    stack,
    post,
    pids: { gateway: children.gateway, posts: children.posts },
    weight: {
      postPageHtmlBrotli: await wireBytes(`${stack.baseUrl}${post.url}`),
      postApiBrotli: await wireBytes(`${stack.baseUrl}/api/posts/${post.id}`),
      entryScriptBrotli: await wireBytes(`${stack.baseUrl}${script}`),
    },
  };
}

/**
 * The reads measured: one post and the home page's list through the gateway's cache (the
 * gateway's CPU), and the list with the cache missed every time (gateway and posts CPU).
 */
const READS = [
  { name: 'cachedPostRead', path: (t) => `/api/posts/${t.post.id}`, unique: false, pids: ['gateway'] },
  { name: 'cachedListRead', path: () => '/api/posts?limit=15', unique: false, pids: ['gateway'] },
  { name: 'uncachedListRead', path: () => '/api/posts?limit=15', unique: true, pids: ['gateway', 'posts'] },
];

export async function benchContent() {
  const results = { render: await renderTimes(ROOT) };
  const content = longMarkdown(1000);
  const targets = benchTargets();
  const running = [];
  try {
    for (const target of targets)
      running.push({ ...target, ...(await startWithPost('content', target.root, content)) });
    const only = process.env.BENCH_READS?.split(',');
    for (const read of READS.filter((r) => !only || only.includes(r.name)))
      results[read.name] = await alternating(running, (target) =>
        loadCost(
          `${target.stack.baseUrl}${read.path(target)}`,
          Object.fromEntries(read.pids.map((name) => [name, target.pids[name]])),
          { unique: read.unique },
        ),
      );
    results.weight = Object.fromEntries(running.map((t) => [t.name, t.weight]));
    return results;
  } finally {
    await Promise.all(running.map((t) => t.stack.stop()));
  }
}
