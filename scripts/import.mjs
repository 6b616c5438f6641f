#!/usr/bin/env node
// `npm run import -- <file> [options]`: a WordPress (WXR) or Ghost export brought into the
// running site through its API, with a progress bar in the terminal. The file streams from
// disk (up to 2 GB); the site imports it in the background, so the command may be stopped
// and the import goes on (its id is printed; the dashboard's Backup tab shows it too).
//   --url URL              the site (default http://localhost:$PORT or :3000)
//   --map slug=Node/Path   a WordPress category (or Ghost tag) slug → a node of the tree; repeatable
//   --source-url URL       the old site's address (Ghost's __GHOST_URL__, relative links)
//   --skip-drafts          leave the source's drafts out
// Signs in as ADMIN_USERNAME/ADMIN_PASSWORD, else with DATA_DIR/admin-credentials.txt (the
// account `npm start` created); BLOG_2FA_CODE when the account asks for a code.
import { existsSync, openAsBlob, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const USAGE =
  'usage: npm run import -- <file> [--url URL] [--map slug=Node/Path]... [--source-url URL] [--skip-drafts]';

function parseArgs(argv) {
  const options = {
    map: {},
    url: `http://localhost:${process.env.PORT ?? 3000}`,
    sourceUrl: '',
    drafts: 'import',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value\n${USAGE}`);
      return argv[++i];
    };
    if (arg === '--url') options.url = value().replace(/\/+$/, '');
    else if (arg === '--source-url') options.sourceUrl = value();
    else if (arg === '--skip-drafts') options.drafts = 'skip';
    else if (arg === '--map') {
      const [slug, ...path] = value().split('=');
      if (!slug || !path.length) throw new Error(`--map takes slug=Node/Path\n${USAGE}`);
      options.map[slug] = path.join('=');
    } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}\n${USAGE}`);
    else if (!options.file) options.file = resolve(arg);
    else throw new Error(USAGE);
  }
  if (!options.file) throw new Error(USAGE);
  if (!existsSync(options.file)) throw new Error(`no file ${options.file}`);
  return options;
}

function credentials() {
  if (process.env.ADMIN_USERNAME && process.env.ADMIN_PASSWORD)
    return { username: process.env.ADMIN_USERNAME, password: process.env.ADMIN_PASSWORD };
  const file = join(resolve(process.env.DATA_DIR ?? './data'), 'admin-credentials.txt');
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    const username = /^username: (.*)$/m.exec(text)?.[1];
    const password = /^password: (.*)$/m.exec(text)?.[1];
    if (username && password) return { username, password };
  }
  throw new Error('set ADMIN_USERNAME and ADMIN_PASSWORD (an admin account of the site)');
}

async function json(response) {
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error ?? `the site answered ${response.status}`);
  return body;
}

const size = (bytes) =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(2)} GB`
    : bytes >= 1024 ** 2
      ? `${(bytes / 1024 ** 2).toFixed(1)} MB`
      : `${Math.ceil(bytes / 1024)} KB`;

function line(report) {
  const width = 30;
  const done = Math.round((report.percent / 100) * width);
  return (
    `[${'#'.repeat(done)}${'-'.repeat(width - done)}] ${String(report.percent).padStart(3)}%  ` +
    `imported ${report.imported}, updated ${report.updated}, skipped ${report.skipped}, failed ${report.failed} of ${report.total}; ` +
    `media ${report.media.downloaded} fetched, ${report.media.failed} failed`
  );
}

async function main(argv) {
  const options = parseArgs(argv);
  const { username, password } = credentials();
  const login = await json(
    await fetch(`${options.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username,
        password,
        ...(process.env.BLOG_2FA_CODE ? { code: process.env.BLOG_2FA_CODE } : {}),
      }),
    }),
  );
  const form = new FormData();
  form.append('categoryMap', JSON.stringify(options.map));
  form.append('sourceUrl', options.sourceUrl);
  form.append('drafts', options.drafts);
  // openAsBlob reads the file as it is sent: a 2 GB export is never held in memory.
  form.append('file', await openAsBlob(options.file), basename(options.file));
  process.stdout.write(
    `Uploading ${basename(options.file)} (${size(statSync(options.file).size)}) to ${options.url}...\n`,
  );
  const headers = { authorization: `Bearer ${login.token}` };
  let report = await json(
    await fetch(`${options.url}/api/admin/import`, { method: 'POST', headers, body: form }),
  );
  process.stdout.write(`Import ${report.id} (${report.format}) started.\n`);
  const tty = process.stdout.isTTY;
  let last = '';
  while (report.state === 'queued' || report.state === 'running') {
    await new Promise((r) => setTimeout(r, 500));
    report = await json(await fetch(`${options.url}/api/admin/import/${report.id}`, { headers }));
    const text = line(report);
    if (text !== last) process.stdout.write(tty ? `\r${text}` : `${text}\n`);
    last = text;
  }
  if (line(report) !== last) process.stdout.write(`${tty ? '\r' : ''}${line(report)}\n`);
  else if (tty) process.stdout.write('\n');
  for (const error of report.errors) process.stdout.write(`  ${error.item}: ${error.message}\n`);
  if (Object.keys(report.skippedBy).length)
    process.stdout.write(
      `Skipped: ${Object.entries(report.skippedBy)
        .map(([why, n]) => `${n} ${why}`)
        .join(', ')}\n`,
    );
  if (report.restricted?.length) {
    process.stdout.write('Imported as drafts, restricted in the source:\n');
    for (const post of report.restricted) process.stdout.write(`  ${post.item}: ${post.reason}\n`);
  }
  if (report.state === 'failed') throw new Error(`The import failed: ${report.reason}`);
  process.stdout.write(`Done: ${report.redirects} old addresses now lead to their posts.\n`);
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
