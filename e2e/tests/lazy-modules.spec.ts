import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../..');

/** Libraries only an import (its readers) or the Redis topology (BullMQ, ioredis) needs. */
const ON_DEMAND = ['turndown', 'stream-json', 'saxes', 'bullmq', 'ioredis'];

/**
 * The built servers loaded as `npm start` loads them (scripts/lib/one-process.mjs), without
 * starting them: which of ON_DEMAND are loaded then, and after an import's readers run once.
 */
const PROBE = `
import { registerHooks } from 'node:module';
import { Readable } from 'node:stream';
// Every module resolved from here on, by import() or require(), ES module or CommonJS.
const resolved = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
const onDemand = ${JSON.stringify(ON_DEMAND)};
const loaded = () =>
  onDemand.filter((name) => [...resolved].some((url) => url.includes('/node_modules/' + name + '/')));
for (const entry of ['services/posts', 'services/auth', 'services/media', 'services/mail', 'gateway'])
  await import('./' + entry + '/dist/index.js');
const atStart = loaded();
const { htmlToMarkdown } = await import('./services/posts/dist/import/html-to-markdown.js');
const { wxrItems } = await import('./services/posts/dist/import/wxr-reader.js');
const { jsonAt } = await import('./services/posts/dist/import/json-stream.js');
const converted = htmlToMarkdown('<p>Hello <b>there</b></p>', {});
const wxr = '<rss><channel><item><title>One</title></item></channel></rss>';
const items = [];
for await (const item of wxrItems(Readable.from([Buffer.from(wxr)]))) items.push(item);
const values = [];
for await (const value of jsonAt(Readable.from([Buffer.from('{"posts":[1,2]}')]), /^posts$/)) values.push(value);
console.log(JSON.stringify({ atStart, afterImport: loaded(), converted: converted.markdown, items: items.length, values }));
`;

describe('code loaded only when used', () => {
  it("the servers start without an import's readers or the Redis libraries; an import loads its readers", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE], {
      cwd: ROOT,
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toEqual({
      atStart: [],
      afterImport: ['turndown', 'stream-json', 'saxes'],
      converted: 'Hello **there**',
      items: 1,
      values: [1, 2],
    });
  }, 60_000);
});
