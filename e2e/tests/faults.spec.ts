/**
 * The faults benchmark's checks as a test (`npm run bench -- faults`, shorter): in the
 * production topology with two posts replicas, reads keep answering and every intended write
 * is stored exactly once while a replica is SIGKILLed and while nats-server restarts. The
 * writer sends an Idempotency-Key and retries a failed write once with it.
 */
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { missingPrograms } from '../../scripts/lib/programs.mjs';
import { killReplicaUnderLoad, restartNatsUnderLoad, startFaultRig } from '../../scripts/bench/faults.mjs';

type FaultResult = Awaited<ReturnType<typeof killReplicaUnderLoad>>;

const missing = missingPrograms().map((program: { name: string }) => program.name);
const suite = missing.length ? describe.skip : describe;
const suiteName = `faults under load${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`;
const SECONDS = 6;

/** What must hold after a fault: no failed read, each write once, none lost unseen. */
function expectSafe(result: FaultResult) {
  expect({
    non2xxReads: result.reads.non2xx,
    readErrors: result.reads.errors,
    failedProbeReads: result.probeReads.failed,
    acknowledgedNotExactlyOnce: result.acknowledgedNotExactlyOnce,
    unacknowledgedButStored: result.unacknowledgedButStored,
    storedMoreThanOnce: result.storedMoreThanOnce,
  }).toEqual({
    non2xxReads: 0,
    readErrors: 0,
    failedProbeReads: 0,
    acknowledgedNotExactlyOnce: 0,
    unacknowledgedButStored: 0,
    storedMoreThanOnce: 0,
  });
  expect(result.writesAcknowledged).toBeGreaterThan(0);
  expect(result.reads.requests).toBeGreaterThan(100);
}

suite(suiteName, () => {
  let rig: Awaited<ReturnType<typeof startFaultRig>> | undefined;

  beforeAll(async () => {
    rig = await startFaultRig({ posts: 100 });
  }, 180_000);
  afterAll(() => rig?.stop());

  test('a posts replica SIGKILLed: every read answered, every write stored once', async () => {
    expectSafe(await killReplicaUnderLoad(rig!, SECONDS));
  }, 90_000);

  test('nats-server restarted: every read answered (retried or stale), every write stored once', async () => {
    expectSafe(await restartNatsUnderLoad(rig!, SECONDS));
  }, 90_000);

  test('both posts replicas SIGKILLed mid-import: a new one finishes it; every post once, no half post, no orphan file', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c04020' } })
      .jpeg()
      .toBuffer();
    // Each picture takes 150 ms to arrive, so the import is still running when the replicas die.
    const pictures = createServer((req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg), 150);
    });
    await new Promise<void>((r) => pictures.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}`;
    const POSTS = 40;
    const items = Array.from(
      { length: POSTS },
      (_, i) => `<item><title>Killed import ${i}</title><guid isPermaLink="false">kill-${i}</guid>
        <content:encoded><![CDATA[<p>Post ${i}</p><img src="${base}/p${i}.jpg" alt="Picture ${i}">]]></content:encoded>
        <wp:post_id>${9000 + i}</wp:post_id><wp:post_date_gmt>2020-01-01 10:00:00</wp:post_date_gmt>
        <wp:post_name>killed-import-${i}</wp:post_name><wp:status>publish</wp:status><wp:post_type>post</wp:post_type></item>`,
    );
    const wxr = `<?xml version="1.0"?><rss xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/"><channel><wp:base_blog_url>http://kill.example</wp:base_blog_url>${items.join('')}</channel></rss>`;
    const form = new FormData();
    form.append('file', new Blob([wxr]), 'kill.xml');
    const started = await fetch(`${rig!.url}/api/admin/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig!.token}` },
      body: form,
    });
    expect(started.status).toBe(202);
    const { id } = (await started.json()) as { id: string };
    const report = async () =>
      (await (
        await fetch(`${rig!.url}/api/admin/import/${id}`, {
          headers: { authorization: `Bearer ${rig!.token}` },
        })
      ).json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      for (let r = await report(); r.imported < 5; r = await report())
        await new Promise((done) => setTimeout(done, 100));
      const replicas = [...rig!.stack.children.keys()].filter(
        (name: string) =>
          name.startsWith('posts#') &&
          rig!.stack.children.get(name).child.exitCode === null &&
          rig!.stack.children.get(name).child.signalCode === null,
      );
      await Promise.all(replicas.map((name: string) => rig!.stack.killProcess(name, 'SIGKILL')));
      const atKill = (
        await rig!.db.query(
          `SELECT count(*)::int AS n FROM posts.posts WHERE source_id LIKE 'wxr:kill.example:%'`,
        )
      ).rows[0].n;
      expect(atKill).toBeLessThan(POSTS);
      await rig!.stack.startProcess('posts', 9);
      let final = await report().catch(() => ({}) as Record<string, unknown>);
      for (const deadline = Date.now() + 90_000; final.state !== 'done' && final.state !== 'failed';) {
        if (Date.now() > deadline) throw new Error(`import not finished: ${JSON.stringify(final)}`);
        await new Promise((done) => setTimeout(done, 500));
        final = await report().catch(() => final);
      }
      expect(final).toMatchObject({ state: 'done', failed: 0 });
      expect((final.imported as number) + (final.updated as number)).toBeGreaterThanOrEqual(POSTS);
      // Every post once, each with its one picture and its text: no half post.
      const posts = (
        await rig!.db.query(
          `SELECT p.source_id, p.content, count(m.id)::int AS media FROM posts.posts p
           LEFT JOIN posts.media_items m ON m.post_id = p.id WHERE p.source_id LIKE 'wxr:kill.example:%' GROUP BY p.id`,
        )
      ).rows as { source_id: string; content: string; media: number }[];
      expect(posts).toHaveLength(POSTS);
      expect(posts.filter((p) => p.media !== 1 || !/^Post \d+/.test(p.content))).toEqual([]);
      // No file in the bucket that no media item holds.
      const stored = (await readdir(rig!.stack.s3Dir, { recursive: true }))
        .map(String)
        // s3rver keeps each object as <key>._S3rver_object beside its metadata files.
        .filter((f) => f.includes('private/originals/import/') && f.endsWith('._S3rver_object'))
        .map((f) => f.slice(f.indexOf('private/originals/import/')).replace(/\._S3rver_object$/, ''));
      const held = new Set(
        (
          await rig!.db.query(
            `SELECT original_key FROM posts.media_items WHERE original_key LIKE 'private/originals/import/%'`,
          )
        ).rows.map((r: { original_key: string }) => r.original_key),
      );
      expect(stored.length).toBeGreaterThanOrEqual(POSTS);
      expect(stored.filter((key) => !held.has(key))).toEqual([]);
    } finally {
      pictures.close();
    }
  }, 180_000);
});
