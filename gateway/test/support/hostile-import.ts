/**
 * What the hostile-import specs (import.hostile.*.spec.ts, import.tries.spec.ts) share: WXR
 * files, zips and this blog's own archives made in memory, a stack whose imports time pictures
 * out after 1 s, and an import run while the site's reads are polled and timed, and the event
 * loop's longest stall measured.
 */
import { BLOG_ARCHIVE_FORMAT, BLOG_ARCHIVE_VERSION, type ImportReport, type PostView } from '@blog/contracts';
import { PerformanceObserver } from 'node:perf_hooks';
import { ZipFile } from 'yazl';
import { multipart } from './media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './test-stack.js';

export const MB = 1024 * 1024;
const HEAD = `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Hostile</title>`;
const TAIL = `</channel></rss>`;

export function wxrItem(id: number, title: string, content: string | Buffer = 'Text.'): Buffer {
  return Buffer.concat([
    Buffer.from(`<item><title>${title}</title><guid>http://evil.example/?p=${id}</guid>
<wp:post_id>${id}</wp:post_id><wp:post_name>${title.toLowerCase().replace(/\W+/g, '-')}</wp:post_name>
<wp:status>publish</wp:status><wp:post_type>post</wp:post_type><content:encoded><![CDATA[`),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`]]></content:encoded></item>`),
  ]);
}
export const wxr = (...parts: (string | Buffer)[]) =>
  Buffer.concat([HEAD, ...parts, TAIL].map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))));

/** A zip made with yazl: `files` by name; each name's `xx/` can be turned into `../` afterwards. */
export async function zip(files: Record<string, Buffer | string>): Promise<Buffer> {
  const file = new ZipFile();
  for (const [name, data] of Object.entries(files)) file.addBuffer(Buffer.from(data), name);
  file.end();
  const chunks: Buffer[] = [];
  for await (const chunk of file.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** blog.json of this blog's own export, with these posts (the site is not one: it is reported, not restored). */
/** `more`: further keys of blog.json (e.g. its `shortNotes`). */
export function blogJson(posts: unknown[], site: unknown = {}, more: Record<string, unknown> = {}): string {
  return JSON.stringify({
    format: BLOG_ARCHIVE_FORMAT,
    version: BLOG_ARCHIVE_VERSION,
    site,
    posts,
    users: [],
    subscribers: [],
    ...more,
  });
}
export function archivePost(id: number, title: string, content: string, media: unknown[] = []) {
  return {
    id,
    title,
    slug: title.toLowerCase().replace(/\W+/g, '-'),
    status: 'published',
    createdAt: '2020-01-01T00:00:00.000Z',
    updatedAt: '2020-01-01T00:00:00.000Z',
    category: 'More',
    submenu1: 'General',
    submenu2: null,
    placeId: null,
    tags: [],
    content,
    sourceId: null,
    oldPaths: [],
    media,
  };
}

/** One import run while the site was read: see importWhileReading. */
export interface ImportRun {
  report: ImportReport;
  ms: number;
  slowestRead: number;
  reads: number;
  /** The longest stretch of this thread's CPU time between two ticks of a 10 ms timer. */
  stallMs: number;
  /** The longest garbage collection during the run (wall ms), left out of the stall. */
  longestGcMs: number;
  heapGrowthMb: number;
}

/** This thread's CPU time, in ms (its user and system time: not V8's helper threads, not waiting for a core). */
const threadCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

export interface HostileImportStack {
  stack: TestStack;
  admin: string;
  /** Uploads a file as the admin (202, or the test fails): the import's id. */
  upload(name: string, data: Buffer | string): Promise<string>;
  reportOf(id: string): Promise<ImportReport>;
  finished(id: string, withinMs: number): Promise<ImportReport>;
  /**
   * Uploads `file`, then, while it is imported, asks for the post list every 100 ms: the
   * report, how long the import took, the slowest read, the event loop's longest stall and the
   * heap's growth (this process runs the whole stack, the import on this thread). The stall is
   * the most CPU time this thread spent between two ticks of a 10 ms timer: what holds every
   * read back, measured so that a loaded machine, which leaves the process waiting for a core,
   * does not count (as services/posts/src/import/readers.hostile.spec.ts does). The upload itself
   * is not timed: it is the gateway's, not the import's.
   */
  importWhileReading(name: string, file: Buffer | string, withinMs?: number): Promise<ImportRun>;
  /** The bounds every hostile file is held to (generous: CI machines are shared and slow). */
  expectBounded(
    label: string,
    run: ImportRun,
    bounds?: { ms?: number; stall?: number; heapMb?: number },
  ): void;
  /** Every post's title, drafts included. */
  titles(): Promise<string[]>;
}

/**
 * The file's stack, started before its tests (and before any beforeAll declared after this
 * call) and stopped after them, printing each bounded run's figures; its functions may be taken
 * out of the answer at once.
 */
export function useHostileImportStack(): HostileImportStack {
  const figures: string[] = [];
  const rig: HostileImportStack = {
    async upload(name, data) {
      const { body, contentType } = multipart([
        { name: 'file', file: { filename: name, type: 'application/octet-stream', data: Buffer.from(data) } },
      ]);
      const response = await fetch(`${rig.stack.baseUrl}/api/admin/import`, {
        method: 'POST',
        headers: { 'content-type': contentType, authorization: `Bearer ${rig.admin}` },
        body,
      });
      const json = (await response.json()) as ImportReport;
      expect([response.status, json]).toEqual([202, expect.objectContaining({ id: expect.any(String) })]);
      return json.id;
    },
    reportOf: async (id) =>
      (await api(rig.stack, `/api/admin/import/${id}`, { token: rig.admin })).json as unknown as ImportReport,
    async finished(id, withinMs) {
      for (const deadline = Date.now() + withinMs; ;) {
        const report = await rig.reportOf(id);
        if (report.state === 'done' || report.state === 'failed') return report;
        if (Date.now() > deadline) throw new Error(`import still ${report.state}: ${JSON.stringify(report)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async importWhileReading(name, file, withinMs = 60_000) {
      const id = await rig.upload(name, file);
      const reads: number[] = [];
      let reading = true;
      const reader = (async () => {
        while (reading) {
          const started = performance.now();
          const response = await fetch(`${rig.stack.baseUrl}/api/posts?limit=1`);
          await response.arrayBuffer();
          expect(response.status).toBe(200);
          reads.push(performance.now() - started);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const heapBefore = process.memoryUsage().heapUsed;
      let heapPeak = heapBefore;
      const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 20);
      // Garbage collection apart: this process holds the whole stack and Jest, and a full
      // collection of it is no parser's stall (the heap's growth is bounded on its own).
      let gcMs = 0;
      let gcMax = 0;
      const collections = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          gcMs += entry.duration;
          gcMax = Math.max(gcMax, entry.duration);
        }
      });
      collections.observe({ entryTypes: ['gc'] });
      let lastTick = threadCpuMs();
      let lastGc = 0;
      let stallMs = 0;
      const ticker = setInterval(() => {
        const now = threadCpuMs();
        stallMs = Math.max(stallMs, now - lastTick - (gcMs - lastGc));
        lastTick = now;
        lastGc = gcMs;
      }, 10);
      const started = Date.now();
      try {
        const report = await rig.finished(id, withinMs);
        // The stretch up to the end counts too.
        stallMs = Math.max(stallMs, threadCpuMs() - lastTick - (gcMs - lastGc));
        return {
          report,
          ms: Date.now() - started,
          slowestRead: Math.max(...reads),
          reads: reads.length,
          stallMs,
          longestGcMs: gcMax,
          heapGrowthMb: (heapPeak - heapBefore) / MB,
        };
      } finally {
        reading = false;
        clearInterval(sampler);
        clearInterval(ticker);
        collections.disconnect();
        await reader;
      }
    },
    // Reads are held back by the event loop's stalls, so the stall is what is bounded, in this
    // thread's CPU time: the wall-clock read it causes took under 100 ms alone, yet 1.7 s in a full
    // CI run (every suite at once on 2 cores); the unguarded parsers stalled reads 3.4 s and more.
    // The longest these files cause alone is 41 ms of CPU (the 1.5 MB post); beside two CPU
    // burners a run measured 1.4 s, since the gap between two late ticks also holds the rest of
    // the stack's queued work on this thread. The bound, 2.5 s, still catches a parser that never
    // yields; the slowest read is printed with the figures. Garbage collections are left out of
    // the stall (and the longest is printed): late in a whole run beside two burners, this process
    // (every service and Jest) stalled 3.9 s of CPU during the 100,000-tag file, which stalls 57 ms
    // beside two burners alone. The import's own time is bounded
    // at 10 times an idle run too (under 2 s, 30 s allowed): it catches a parser that loops, not a
    // slow machine.
    expectBounded(label, run, { ms = 30_000, stall = 2500, heapMb = 256 } = {}) {
      figures.push(
        `${label}: ${run.report.state} in ${run.ms} ms, slowest of ${run.reads} reads ${Math.round(run.slowestRead)} ms, longest stall ${Math.round(run.stallMs)} ms of CPU (longest collection ${Math.round(run.longestGcMs)} ms), heap +${Math.round(run.heapGrowthMb)} MB`,
      );
      expect(run.ms).toBeLessThan(ms);
      expect(run.stallMs).toBeLessThan(stall);
      expect(run.heapGrowthMb).toBeLessThan(heapMb);
    },
    titles: async () =>
      (
        (await api(rig.stack, `/api/posts?limit=100&status=all`, { token: rig.admin }))
          .json as unknown as PostView[]
      ).map((p) => p.title),
  } as Partial<HostileImportStack> as HostileImportStack;

  beforeAll(async () => {
    rig.stack = await startTestStack({ IMPORT_MEDIA_TIMEOUT_MS: '1000' });
    rig.admin = await loginAs(rig.stack, ADMIN.username, ADMIN.password);
  }, 120_000);
  afterAll(async () => {
    if (figures.length) console.log(`hostile imports:\n${figures.join('\n')}`);
    await rig.stack?.stop();
  });
  return rig;
}
