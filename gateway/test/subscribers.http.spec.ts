import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  linkIn,
  startTestSmtp,
  type ReceivedMail,
  type TestSmtp,
} from '../../services/mail/test/support/smtp.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Chunk = string | Uint8Array;
interface Report {
  id: string;
  state: string;
  lines: number;
  added: number;
  confirmed: number;
  pending: number;
  duplicates: number;
  invalid: number;
  errors: { line: number; reason: string }[];
  error?: string;
}

const isDigest = (mail: ReceivedMail) => / new posts? this week$/.test(mail.parsed.subject ?? '');
const encoder = new TextEncoder();
/** The About page is rendered by the built web (npm run build); without it, its test is skipped. */
const WEB_DIST = join(import.meta.dirname, '../../web/dist');
const webBuilt =
  existsSync(join(WEB_DIST, 'index.html')) && existsSync(join(WEB_DIST, '../dist-ssr/entry-server.js'));

/** The subscribers' part of the mail: frequency, the preferences page, the owner's list, import and export. */
describe('subscribers through the gateway (real services, real SMTP server)', () => {
  let stack: TestStack;
  let smtp: TestSmtp;
  let admin: string;
  let reader: string;
  let sql: pg.Client;
  const site = 'https://blog.example';

  const direct = (url: string) => (url.startsWith(site) ? `${stack.baseUrl}${url.slice(site.length)}` : url);
  const page = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(direct(url), { redirect: 'manual', ...init });
    return { status: response.status, headers: response.headers, html: await response.text() };
  };
  const form = (url: string, body: string) =>
    page(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  const subscriber = async (email: string) =>
    (
      await sql.query<{ status: string; frequency: string }>(
        `SELECT status, frequency FROM mail.subscribers WHERE lower(email) = lower($1)`,
        [email],
      )
    ).rows[0];
  const count = async (where = 'true') =>
    Number((await sql.query(`SELECT count(*) FROM mail.subscribers WHERE ${where}`)).rows[0].count);

  /** A multipart upload whose file is streamed from `file` (never built whole in memory). */
  const upload = async (
    file: Chunk | Iterable<Chunk> | AsyncIterable<Chunk>,
    options: { fields?: Record<string, string>; token?: string; headers?: Record<string, string> } = {},
  ) => {
    const boundary = `----subscribers${randomUUID()}`;
    const fields = options.fields ?? { consented: 'true', frequency: 'weekly' };
    async function* parts(): AsyncGenerator<Chunk> {
      for (const [name, value] of Object.entries(fields))
        yield `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      yield `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="list.csv"\r\nContent-Type: text/csv\r\n\r\n`;
      if (typeof file === 'string' || file instanceof Uint8Array) yield file;
      else yield* file as AsyncIterable<Chunk>;
      yield `\r\n--${boundary}--\r\n`;
    }
    const chunks = parts();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
      },
    });
    const token = options.token ?? admin;
    const response = await fetch(`${stack.baseUrl}/api/admin/subscribers/import`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...options.headers,
      },
      body,
      duplex: 'half',
    } as RequestInit);
    const text = await response.text();
    return { status: response.status, report: (text ? JSON.parse(text) : undefined) as Report };
  };

  beforeAll(async () => {
    smtp = await startTestSmtp();
    stack = await startTestStack({
      SITE_URL: site,
      SMTP_URL: smtp.url,
      OWNER_EMAIL: 'owner@blog.example',
      MAIL_RETRY_INTERVAL_MS: '200',
      SUBSCRIBE_MAX_PER_IP: '1000',
      WEB_DIST,
    });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'listreader', password: 'reader-password' } });
    reader = await loginAs(stack, 'listreader', 'reader-password');
    sql = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await stack?.stop();
    await smtp?.close();
  });

  it('a reader chooses every post or the weekly digest (weekly unless said); the digest goes to weekly, confirmed, not bounced subscribers with a preferences link', async () => {
    const subscribe = (email: string, frequency?: string) =>
      api(stack, '/api/subscribe', { body: { email, ...(frequency ? { frequency } : {}) } });
    expect((await subscribe('each@reader.example', 'each-post')).status).toBe(200);
    expect((await subscribe('week@reader.example', 'weekly')).status).toBe(200);
    expect((await subscribe('plain@reader.example')).status).toBe(200);
    expect((await subscribe('bounce@reader.example')).status).toBe(200);
    expect((await subscribe('x@reader.example', 'daily')).json).toEqual({
      error: 'frequency must be one of each-post, weekly',
    });
    expect(await subscriber('plain@reader.example')).toEqual({ status: 'pending', frequency: 'weekly' });
    for (const email of [
      'each@reader.example',
      'week@reader.example',
      'plain@reader.example',
      'bounce@reader.example',
    ]) {
      const [confirmation] = await smtp.waitFor(1, (m) => m.to.includes(email));
      expect((await page(linkIn(confirmation!, `${site}/api/subscribe/confirm?token=`))).status).toBe(200);
    }
    // A confirmed address keeps its choice when the public form is sent again with another.
    await subscribe('each@reader.example', 'weekly');
    expect(await subscriber('each@reader.example')).toEqual({ status: 'confirmed', frequency: 'each-post' });
    await sql.query(
      `UPDATE mail.subscribers SET bounced_at = now(), bounce_count = 2 WHERE email = 'bounce@reader.example'`,
    );

    const post = new FormData();
    post.set('title', 'Subscribers week');
    post.set('content', 'A post for the digest.');
    post.set('category', 'Projects');
    const created = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: post,
    });
    expect(created.status).toBe(201);
    const run = await api(stack, '/api/admin/digest', { method: 'POST', token: admin });
    expect(run.json).toMatchObject({ sent: 2, posts: 1 });
    const digests = await smtp.waitFor(2, isDigest);
    expect(digests.flatMap((m) => m.to).sort()).toEqual(['plain@reader.example', 'week@reader.example']);

    // The digest's footer links the preferences page: a token of its own, no account.
    const digest = digests.find((m) => m.to.includes('week@reader.example'))!;
    const link = linkIn(digest, `${site}/api/preferences?token=`);
    expect(digest.parsed.html).toContain('Change how often');
    expect(digest.parsed.text).toContain(link);
    const unsubscribeToken = /token=([\w-]{43})/.exec(digest.header('list-unsubscribe')!)![1]!;
    expect(link).not.toContain(unsubscribeToken);
    expect((await page(`${site}/api/preferences?token=${unsubscribeToken}`)).status).toBe(404);

    const shown = await page(link);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('w***@reader.example is subscribed.');
    expect(shown.html).toContain('<input type="radio" name="frequency" value="weekly" checked>');
    expect(shown.html).not.toMatch(/<script|src=|https?:\/\//);
    expect(shown.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(shown.headers.get('cache-control')).toBe('no-store');

    // Without JavaScript: the forms post back to the link.
    const switched = await form(link, 'frequency=each-post');
    expect(switched.status).toBe(200);
    expect(switched.html).toContain('Saved: you will get every new post by e-mail.');
    expect(switched.html).toContain('value="each-post" checked');
    expect(await subscriber('week@reader.example')).toEqual({ status: 'confirmed', frequency: 'each-post' });
    expect((await form(link, 'frequency=hourly')).status).toBe(400);
    const json = await page(link.replace(/\?.*/, ''), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link).searchParams.get('token'), frequency: 'weekly' }),
    });
    expect(JSON.parse(json.html)).toEqual({
      email: 'w***@reader.example',
      status: 'confirmed',
      frequency: 'weekly',
    });
    const gone = await form(link, 'unsubscribe=true');
    expect(gone.html).toContain('You are unsubscribed');
    expect(await subscriber('week@reader.example')).toEqual({ status: 'unsubscribed', frequency: 'weekly' });
    expect((await form(`${site}/api/preferences?token=${'x'.repeat(43)}`, 'unsubscribe=true')).status).toBe(
      404,
    );
    expect((await page(`${site}/api/preferences`)).status).toBe(404);
  });

  (webBuilt ? it : it.skip)(
    'the About page asks how often, and the choice works without JavaScript',
    async () => {
      const about = await page(`${stack.baseUrl}/about`);
      expect(about.html).toMatch(/<input type="radio" name="frequency" value="each-post"/);
      expect(about.html).toMatch(/<input type="radio" name="frequency" checked="" value="weekly"/);
      const posted = await form(
        `${stack.baseUrl}/about`,
        'form=subscribe&email=nojs%40reader.example&frequency=each-post',
      );
      expect(posted.status).toBe(200);
      expect(posted.html).toContain('Successfully subscribed!');
      expect(await subscriber('nojs@reader.example')).toEqual({ status: 'pending', frequency: 'each-post' });
      await sql.query(`DELETE FROM mail.subscribers WHERE email = 'nojs@reader.example'`);
    },
  );

  it('the owner lists by status, frequency and part of the address, counts, resets a bounce', async () => {
    const list = async (query: string) => {
      const response = await api(stack, `/api/admin/subscribers?${query}`, { token: admin });
      expect(response.status).toBe(200);
      return (response.json as unknown as { email: string }[]).map((s) => s.email).sort();
    };
    expect(await list('frequency=each-post')).toEqual(['each@reader.example']);
    expect(await list('status=bounced')).toEqual(['bounce@reader.example']);
    expect(await list('search=PLAIN')).toEqual(['plain@reader.example']);
    expect(await list('search=%25&status=&frequency=')).toEqual([]);
    expect(await list('status=confirmed&frequency=weekly')).toEqual([
      'bounce@reader.example',
      'plain@reader.example',
    ]);
    const rows = await api(stack, '/api/admin/subscribers?status=bounced', { token: admin });
    expect(rows.json[0]).toMatchObject({ frequency: 'weekly', bounced: true, status: 'confirmed' });

    const counts = await api(stack, '/api/admin/subscribers/counts', { token: admin });
    expect(counts.json).toEqual({
      byStatus: { pending: 0, confirmed: 3, unsubscribed: 1, bounced: 1 },
      byFrequency: { 'each-post': 1, weekly: 1 },
    });

    const id = (rows.json[0] as { id: number }).id;
    const reset = await api(stack, `/api/admin/subscribers/${id}/reset-bounce`, {
      method: 'POST',
      token: admin,
    });
    expect(reset.status).toBe(200);
    expect(reset.json).toMatchObject({ email: 'bounce@reader.example', bounced: false });
    expect(await list('status=bounced')).toEqual([]);
    expect(
      (await api(stack, '/api/admin/subscribers/999999/reset-bounce', { method: 'POST', token: admin }))
        .status,
    ).toBe(404);
    expect(
      (await api(stack, '/api/admin/subscribers/abc/reset-bounce', { method: 'POST', token: admin })).status,
    ).toBe(404);
  });

  it('imports a CSV: the address column by name, duplicates and invalid lines counted, consent confirms at once', async () => {
    const before = await count();
    const mailchimp =
      '\uFEFFFirst Name,"Email  Address",Tags\r\n' +
      'Ann,ann@import.example,a\r\n' +
      'Dup,ANN@import.example,b\r\n' +
      'Old,each@reader.example,c\r\n' +
      'Bad,not-an-address,d\r\n' +
      '"Inj","eve@import.example\r\nBcc: victim@else.example",e\r\n' +
      '\r\n' +
      'Bob,bob@import.example,f\r\n';
    const { status, report } = await upload(mailchimp, {
      fields: { consented: 'true', frequency: 'each-post' },
    });
    expect(status).toBe(200);
    expect(report).toMatchObject({
      state: 'done',
      lines: 6,
      added: 2,
      confirmed: 2,
      pending: 0,
      duplicates: 2,
      invalid: 2,
    });
    // A line number is where the record ends (a quoted value may span lines).
    expect(report.errors).toEqual([
      { line: 5, reason: 'email must be a valid e-mail address' },
      { line: expect.any(Number), reason: 'email must be a valid e-mail address' },
    ]);
    expect(report.errors[1]!.line).toBeGreaterThanOrEqual(7);
    expect(await count()).toBe(before + 2);
    expect(await subscriber('ann@import.example')).toEqual({ status: 'confirmed', frequency: 'each-post' });
    expect(await subscriber('each@reader.example')).toEqual({ status: 'confirmed', frequency: 'each-post' });
    expect((await api(stack, `/api/admin/subscribers/import/${report.id}`, { token: admin })).json).toEqual(
      report,
    );

    // Without consent: pending, and each gets the confirmation e-mail (sent in the background).
    const ghost = 'id,email,name\n1,carl@import.example,Carl\n2,dora@import.example,Dora\n';
    const pending = await upload(ghost, { fields: { consented: 'false', frequency: 'weekly' } });
    expect(pending.report).toMatchObject({ state: 'done', added: 2, confirmed: 0, pending: 2 });
    for (const email of ['carl@import.example', 'dora@import.example']) {
      const [mail] = await smtp.waitFor(1, (m) => m.to.includes(email));
      expect(linkIn(mail!, `${site}/api/subscribe/confirm?token=`)).toBeTruthy();
    }
    expect(await subscriber('dora@import.example')).toEqual({ status: 'pending', frequency: 'weekly' });
    expect(smtp.received.some((m) => m.to.includes('victim@else.example') || m.raw.includes('victim@'))).toBe(
      false,
    );

    // The fields come first; a file without an address column says so.
    const late = await upload('email\nlate@import.example\n', { fields: {} });
    expect(late.status).toBe(400);
    expect(late.report).toEqual({ error: 'Send the fields consented and frequency before the file' });
    const noColumn = await upload('name,phone\nAnn,123\n');
    expect(noColumn.report).toMatchObject({ state: 'failed', lines: 0, added: 0 });
    expect(noColumn.report.error).toMatch(/^No address column/);
  });

  it('follows an import by the id the client chose while it uploads', async () => {
    const id = randomUUID();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    async function* slow() {
      yield 'email\n';
      for (let i = 0; i < 1500; i++) yield `follow${i}@import.example\n`;
      await held;
      yield 'last@import.example\n';
    }
    const uploading = upload(slow(), { headers: { 'x-import-id': id } });
    let seen: Report | undefined;
    for (let i = 0; i < 400 && !(seen && seen.lines >= 1000); i++) {
      const status = await api(stack, `/api/admin/subscribers/import/${id}`, { token: admin });
      if (status.status === 200) seen = status.json as unknown as Report;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Batches of 500: the first 1,000 lines are in while the upload waits (the rest of the
    // last line may still be held by the multipart reader until more comes).
    expect(seen).toMatchObject({ id, state: 'running', lines: 1000, added: 1000 });
    release();
    const { report } = await uploading;
    expect(report).toMatchObject({ id, state: 'done', lines: 1501, added: 1501 });
    expect((await upload('email\na@b.example\n', { headers: { 'x-import-id': id } })).status).toBe(409);
    expect((await upload('email\na@b.example\n', { headers: { 'x-import-id': 'nope' } })).status).toBe(400);
    expect((await api(stack, `/api/admin/subscribers/import/${randomUUID()}`, { token: admin })).status).toBe(
      404,
    );
  });

  it('exports every subscriber as CSV, formula cells escaped', async () => {
    await upload('email\n"=HYPERLINK(""http://evil.example"")@x.example"\n');
    await sql.query(
      `INSERT INTO mail.subscribers (email, status) VALUES ('=cmd|calc@evil.example', 'pending'), ('@sum@evil.example', 'pending')`,
    );
    const response = await fetch(`${stack.baseUrl}/api/admin/subscribers/export`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="subscribers-\d{4}-\d\d-\d\d\.csv"$/,
    );
    const lines = (await response.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '"email","status","frequency","bounced","created_at","confirmed_at","unsubscribed_at"',
    );
    expect(lines.length - 1).toBe(await count());
    expect(lines).toContain(
      lines.find((l) => l.startsWith(`"'=cmd|calc@evil.example","pending","weekly","false"`)),
    );
    expect(lines.some((l) => l.startsWith(`"'@sum@evil.example"`))).toBe(true);
    expect(lines.some((l) => /^"[=+\-@]/.test(l))).toBe(false);
    expect(lines.some((l) => l.startsWith('"ann@import.example","confirmed","each-post","false",'))).toBe(
      true,
    );
  });

  it('hostile files end with a report and keep what came before: a 50 MB line, an open quote, Latin-1, UTF-16', async () => {
    async function* longLine() {
      yield 'email\nbefore1@hostile.example\nbefore2@hostile.example\n';
      const mb = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < 50; i++) yield mb;
      yield '\nafter@hostile.example\n';
    }
    const long = await upload(longLine());
    expect(long.status).toBe(200);
    expect(long.report).toMatchObject({ state: 'failed', lines: 2, added: 2 });
    expect(long.report.error).toBe(
      'Line 4 is longer than 10 KB: the import stopped there (the lines before it were imported)',
    );
    expect(await subscriber('after@hostile.example')).toBeUndefined();

    const quote = await upload('email\nq1@hostile.example\n"q2@hostile.example\nq3@hostile.example\n');
    expect(quote.report).toMatchObject({ state: 'failed', added: 1 });
    expect(quote.report.error).toMatch(/^A quoted value is never closed/);
    expect(await subscriber('q3@hostile.example')).toBeUndefined();

    const latin1 = Buffer.concat([
      Buffer.from('email\nlat1@hostile.example\n'),
      Buffer.from('jos\xe9@hostile.example\n', 'latin1'),
    ]);
    const latin = await upload(latin1);
    expect(latin.report).toMatchObject({ state: 'done', lines: 2, added: 1, invalid: 1 });

    // UTF-16 with its BOM is read as such; without one, it is refused with the reason.
    const withBom = await upload(Buffer.from('\uFEFFemail\nwide@hostile.example\n', 'utf16le'));
    expect(withBom.report).toMatchObject({ state: 'done', added: 1 });
    const noBom = await upload(Buffer.from('email\nnarrow@hostile.example\n', 'utf16le'));
    expect(noBom.report).toMatchObject({ state: 'failed', added: 0 });
    expect(noBom.report.error).toBe(
      'The file looks like UTF-16: save it as CSV in UTF-8 and import it again',
    );
    expect(await subscriber('narrow@hostile.example')).toBeUndefined();

    const notMultipart = await api(stack, '/api/admin/subscribers/import', {
      token: admin,
      body: { email: 'a@b.example' },
    });
    expect(notMultipart.status).toBe(400);
  });

  it('a 1,000,000-row file stops at the documented line limit with a clear error', async () => {
    async function* million() {
      yield 'email\n';
      const block = 'same@million.example\n'.repeat(10_000);
      for (let i = 0; i < 100; i++) yield block;
    }
    const started = Date.now();
    const { status, report } = await upload(million());
    expect(status).toBe(200);
    expect(report).toMatchObject({ state: 'failed', lines: 200_000, added: 1, duplicates: 199_999 });
    expect(report.error).toBe(
      'A file may have at most 200,000 lines: the import stopped at line 200002 (the lines before it were imported)',
    );
    console.log(`1,000,000-row file: stopped at the limit in ${Date.now() - started} ms`);
  }, 600_000);

  it('imports 100,000 lines streamed (time and memory logged)', async () => {
    const before = await count();
    async function* lines() {
      yield 'email,name\n';
      for (let block = 0; block < 100; block++) {
        let text = '';
        for (let i = 0; i < 1000; i++) text += `reader${block * 1000 + i}@bulk.example,Reader\n`;
        yield text;
      }
    }
    global.gc?.();
    const rss = process.memoryUsage().rss;
    let peak = rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = Date.now();
    const { report } = await upload(lines());
    clearInterval(sampler);
    const ms = Date.now() - started;
    expect(report).toMatchObject({
      state: 'done',
      lines: 100_000,
      added: 100_000,
      invalid: 0,
      duplicates: 0,
    });
    expect(await count()).toBe(before + 100_000);
    console.log(
      `100,000-line import: ${ms} ms; RSS of the test process (gateway and services) ${Math.round(rss / 2 ** 20)} MB, peak +${Math.round((peak - rss) / 2 ** 20)} MB`,
    );
  }, 600_000);

  it('every admin route of the list needs the admin role', async () => {
    const routes: [string, string][] = [
      ['GET', '/api/admin/subscribers'],
      ['GET', '/api/admin/subscribers/counts'],
      ['GET', '/api/admin/subscribers/export'],
      ['POST', '/api/admin/subscribers/1/reset-bounce'],
      ['POST', '/api/admin/subscribers/import'],
      ['GET', `/api/admin/subscribers/import/${randomUUID()}`],
    ];
    for (const [method, path] of routes) {
      expect([path, (await api(stack, path, { method })).status]).toEqual([path, 401]);
      expect([path, (await api(stack, path, { method, token: reader })).status]).toEqual([path, 403]);
    }
    const before = await count();
    expect((await upload('email\nsneak@import.example\n', { token: reader })).status).toBe(403);
    expect((await upload('email\nsneak@import.example\n', { token: '' })).status).toBe(401);
    expect(await count()).toBe(before);
  });
});
