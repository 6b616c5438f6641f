/**
 * What the visit-statistics specs (stats.*.http.spec.ts) share: a stack that flushes views
 * every 50 ms and logs at debug level, with everything the processes print kept in `logs` (to
 * look for the address and browser in it), a database client, one published post, the beacon
 * a reader's browser sends, the admin's report, and a second gateway whose clock the test sets.
 */
import type { PostView, StatsReport } from '@blog/contracts';
import { freePort } from '@blog/server-kit/testing';
import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import { createGateway, loadGatewayConfig } from '../../src/index.js';
import { fields, multipart } from './media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './test-stack.js';

export const ADDRESS = '203.0.113.77';
export const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) StatsTestBrowser/123.4';
export const OTHER_BROWSER =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 OtherStatsBrowser/9';
export const today = () => new Date().toISOString().slice(0, 10);

export interface StatsStack {
  stack: TestStack;
  admin: string;
  db: pg.Client;
  /** "Counted post", in Garage / Automobiles / Car One. */
  post: PostView;
  /** Everything written to stdout and stderr since the stack started. */
  logs: string[];
  /** POST /api/views from ADDRESS with BROWSER unless `headers` say otherwise. */
  beacon(path: string, headers?: Record<string, string>, base?: string, body?: string): Promise<Response>;
  stats(from?: string, to?: string, extra?: string): Promise<StatsReport>;
  /** The totals once the gateway has handed its batch over. */
  settled(check: (s: StatsReport) => boolean, from?: string, to?: string): Promise<StatsReport>;
  /** A second gateway on the same services whose clock the test sets. */
  clockedGateway(
    start: Date,
    flushMs?: number,
  ): Promise<{ app: INestApplication; clock: { now: Date }; base: string }>;
  /** Removes the counted days from `from` on (what a clocked test added). */
  forgetDays(from: string): Promise<unknown>;
}

/**
 * The file's statistics stack, started before its tests (and before any beforeAll declared
 * after this call) and stopped after them; its functions may be taken out of the answer at once.
 */
export function useStatsStack(): StatsStack {
  const write = {
    out: process.stdout.write.bind(process.stdout),
    err: process.stderr.write.bind(process.stderr),
  };
  const rig: StatsStack = {
    logs: [],
    beacon: (path, headers = {}, base = rig.stack.baseUrl, body) =>
      fetch(`${base}/api/views`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': ADDRESS,
          'user-agent': BROWSER,
          ...headers,
        },
        body: body ?? JSON.stringify({ path, referrer: 'https://news.example.org/some/page?id=7' }),
      }),
    stats: async (from = today(), to = today(), extra = '') =>
      (await api(rig.stack, `/api/admin/stats?from=${from}&to=${to}${extra}`, { token: rig.admin }))
        .json as unknown as StatsReport,
    async settled(check, from, to) {
      let last: StatsReport | undefined;
      for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
        last = await rig.stats(from, to);
        if (check(last)) return last;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`stats never settled: ${JSON.stringify(last)}`);
    },
    async clockedGateway(start, flushMs = 50) {
      const clock = { now: start };
      const port = await freePort();
      const app = await createGateway(
        loadGatewayConfig({ ...rig.stack.env, PORT: String(port), VIEW_FLUSH_MS: String(flushMs) }),
        rig.stack.env,
        { clock: () => clock.now },
      );
      return { app, clock, base: `http://127.0.0.1:${port}` };
    },
    forgetDays: (from) =>
      Promise.all([
        rig.db.query(`DELETE FROM posts.view_days WHERE day >= $1`, [from]),
        rig.db.query(`DELETE FROM posts.view_day_facets WHERE day >= $1`, [from]),
      ]),
  } as Partial<StatsStack> as StatsStack;

  beforeAll(async () => {
    const { logs } = rig;
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(String(chunk));
      return (write.out as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(String(chunk));
      return (write.err as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    rig.stack = await startTestStack({ VIEW_FLUSH_MS: '50', LOG_LEVEL: 'debug' });
    rig.admin = await loginAs(rig.stack, ADMIN.username, ADMIN.password);
    rig.db = new pg.Client({ connectionString: rig.stack.env.DATABASE_URL });
    await rig.db.connect();
    const { body, contentType } = multipart(
      fields({
        title: 'Counted post',
        content: 'Read me.',
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
      }),
    );
    rig.post = (await (
      await fetch(`${rig.stack.baseUrl}/api/posts`, {
        method: 'POST',
        headers: { 'content-type': contentType, authorization: `Bearer ${rig.admin}` },
        body,
      })
    ).json()) as PostView;
  }, 60_000);
  afterAll(async () => {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    await rig.db?.end();
    await rig.stack?.stop();
  });
  return rig;
}
