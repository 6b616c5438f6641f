// `npm run bench -- answers` (or `node scripts/bench/compare-answers.mjs`): are the public answers
// the same byte for byte before and after a refactor? Starts the base revision's stack
// (BENCH_BASE, default 6edb2e7: before the refactor) and this build's on their own ports and data
// folders, gives both the same content, asks both the same public URLs and compares the status,
// the headers that matter and the body. Prints a diff per URL ("identical" otherwise) and exits
// non-zero on a difference that ALLOWED (compare-answers.allowed.mjs) does not list as intended.
// Build first (`npm run build`); the base's worktree is built once in the temp folder.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { copyPosts, makePhotos, SEEDED, startTarget, writeContent } from './answers-content.mjs';
import { applyIntended, render } from './answers-normalise.mjs';
import { BASE_DATA } from './compare-answers.allowed.mjs';
import { ask, requestList } from './answers-requests.mjs';
import pg from 'pg';
import { baseCheckout } from './measure.mjs';
import { ROOT } from './stack.mjs';

async function query(databaseUrl, sql) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query(sql);
    if (!rowCount) throw new Error(`${sql}: changed nothing (the content is not what BASE_DATA expects)`);
  } finally {
    await client.end();
  }
}

async function unifiedDiff(a, b) {
  const dir = await mkdtemp(join(tmpdir(), 'answers-diff-'));
  try {
    await writeFile(join(dir, 'base'), `${a}\n`);
    await writeFile(join(dir, 'build'), `${b}\n`);
    try {
      execFileSync('diff', ['-u', 'base', 'build'], { cwd: dir, encoding: 'utf8' });
      return '';
    } catch (error) {
      return String(error.stdout);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const DIFF_LINES = Number(process.env.ANSWERS_DIFF_LINES ?? 60);
/** ANSWERS_OUT=<folder>: both answers to every request written there whole (as compared), to read at leisure. */
const OUT = process.env.ANSWERS_OUT;
const clip = (line) => (line.length > 400 ? `${line.slice(0, 400)}… (${line.length} characters)` : line);

export async function benchAnswers() {
  const base = baseCheckout(process.env.BENCH_BASE ?? '6edb2e7');
  const targets = [
    { name: `base ${base.sha}`, root: base.dir },
    { name: 'this build', root: ROOT },
  ];
  const stacks = [];
  if (OUT) await mkdir(OUT, { recursive: true });
  try {
    for (const target of targets) stacks.push(await startTarget(target));
    const [before, after] = stacks;
    // The base's seeder seeds the base (its random words), and the same rows go to this build.
    const { seedPosts } = await import(pathToFileURL(join(base.dir, 'scripts/seed.mjs')).href);
    await seedPosts(before.databaseUrl, SEEDED);
    await copyPosts(before.databaseUrl, after.databaseUrl);
    const photos = await makePhotos();
    const written = [];
    for (const stack of stacks) written.push(await writeContent(stack, photos));
    const posts = written[0];
    for (const change of BASE_DATA) {
      process.stdout.write(`base data: ${change.sql}  [${change.commit}: intended]\n`);
      await query(before.databaseUrl, change.sql);
    }
    const same = (post) => JSON.stringify([post.id, post.url, post.map?.((p) => [p.id, p.url])]);
    for (const key of Object.keys(posts))
      if (same(posts[key]) !== same(written[1][key]))
        throw new Error(`the two stacks gave "${key}" different ids or URLs: the content is not the same`);

    // The list is made from the base's answers, so a URL that changed shows as a difference.
    const site = JSON.parse((await ask(before.port, { method: 'GET', path: '/api/site' })).body);
    const seededUrls = [];
    for (const id of [1, 2, 17, 40, SEEDED])
      seededUrls.push(
        JSON.parse((await ask(before.port, { method: 'GET', path: `/api/posts/${id}` })).body).url,
      );
    const index = (await ask(before.port, { method: 'GET', path: '/sitemap.xml' })).body;
    const sitemapFiles = [...index.matchAll(/<loc>https?:\/\/[^/<]+(\/sitemap-[^<]+\.xml)<\/loc>/g)].map(
      (m) => m[1],
    );
    const requests = requestList(site, written, seededUrls, sitemapFiles);

    const ports = stacks.map((s) => s.port);
    const rows = [];
    for (const request of requests) {
      const encoding = request.headers?.['accept-encoding'];
      const key =
        `${request.method} ${request.label ?? request.path}` +
        (encoding ? ` (${encoding})` : '') +
        (request.revalidate ? ' (If-None-Match)' : '') +
        (request.body ? ` ${request.body}` : '');
      const [answerA, answerB] = [await ask(before.port, request), await ask(after.port, request, 1)];
      const [a, b] = [render(answerA, ports), render(answerB, ports)];
      // What the answer was, so the table shows a 404 compared as a 404 and a 301 as a 301.
      const status =
        answerA.status === answerB.status ? `${answerB.status}` : `${answerA.status} → ${answerB.status}`;
      if (OUT) {
        const name = String(rows.length + 1).padStart(3, '0');
        await writeFile(join(OUT, `${name}.base`), `${key}\n${a}\n`);
        await writeFile(join(OUT, `${name}.build`), `${key}\n${b}\n`);
      }
      if (a === b) {
        rows.push({ key, status, verdict: 'identical' });
        process.stdout.write(`identical  ${status} ${key}\n`);
        continue;
      }
      const intended = applyIntended(key, a, b);
      intended.commits = [...new Set(intended.commits.flatMap((c) => c.split(', ')))];
      if (intended.base === intended.build) {
        rows.push({ key, status, verdict: `intended (${intended.commits.join(', ')})` });
        process.stdout.write(`intended   ${status} ${key}  [${intended.commits.join(', ')}]\n`);
        continue;
      }
      const diff = (await unifiedDiff(intended.base, intended.build)).split('\n').map(clip);
      rows.push({ key, status, verdict: 'DIFFERENT' });
      process.stdout.write(`DIFFERENT  ${status} ${key}\n`);
      process.stdout.write(`${diff.slice(2, 2 + DIFF_LINES).join('\n')}\n`);
      if (diff.length > 2 + DIFF_LINES)
        process.stdout.write(`… ${diff.length - 2 - DIFF_LINES} more diff lines\n`);
    }
    const different = rows.filter((r) => r.verdict === 'DIFFERENT').length;
    return {
      base: base.sha,
      urls: rows.length,
      identical: rows.filter((r) => r.verdict === 'identical').length,
      intended: rows.filter((r) => r.verdict.startsWith('intended')).length,
      different,
      table: rows,
    };
  } finally {
    for (const stack of stacks) await stack.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchAnswers();
  process.stdout.write(`\n| URL | status | answer |\n|---|---|---|\n`);
  for (const row of result.table)
    process.stdout.write(`| \`${row.key}\` | ${row.status} | ${row.verdict} |\n`);
  process.stdout.write(
    `\n${result.urls} URLs: ${result.identical} identical, ${result.intended} intended, ${result.different} different\n`,
  );
  if (result.different) process.exitCode = 1;
}
