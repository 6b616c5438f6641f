import { loadSiteConfig, LocalFolderStorage, RpcError } from '@blog/server-kit';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArchiveRestore } from '../src/archive/archive-restore.js';
import { loadPostsConfig } from '../src/config.js';
import { ImportRunner } from '../src/import/import-runner.js';
import type { StoredReport } from '../src/import/import-report.js';
import type { ImportedPostWriter, PostToWrite } from '../src/import/post-writer.js';
import type { SiteSettings } from '../src/site/site-settings.js';
import { InMemoryImportsRepository } from './support/in-memory-imports.repository.js';

const HEAD = `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Runner</title><link>http://old.example</link>`;
const item = (id: number, title: string, status = 'publish', type = 'post') =>
  `<item><title>${title}</title><guid>http://old.example/?p=${id}</guid><wp:post_id>${id}</wp:post_id>
<wp:post_name>${title.toLowerCase().replace(/\W+/g, '-')}</wp:post_name><wp:status>${status}</wp:status>
<wp:post_type>${type}</wp:post_type><content:encoded><![CDATA[<p>${title} text</p>]]></content:encoded></item>`;
const wxr = (...items: string[]) => `${HEAD}${items.join('')}</channel></rss>`;

/**
 * The import runner's rules against an in-memory repository, a folder store and a stand-in
 * post writer: format sniffing, the report, drafts skipped on request, a resumed run that
 * skips what was done, tries, and the uploaded file removed at the end.
 */
describe('import runner rules', () => {
  let dir: string;
  let storage: LocalFolderStorage;
  let imports: InMemoryImportsRepository;
  let written: PostToWrite[];
  let runner: ImportRunner;
  const site = loadSiteConfig();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'import-runner-'));
    storage = new LocalFolderStorage(dir);
    imports = new InMemoryImportsRepository();
    written = [];
    const writer = {
      write: async (_importId: string, post: PostToWrite, _report: StoredReport) => {
        if (post.title === 'Broken') throw new Error('refused by the form');
        written.push(post);
        return false;
      },
    } as unknown as ImportedPostWriter;
    const settings = { current: () => site } as unknown as SiteSettings;
    // The database is the in-memory repository: the URL only satisfies the configuration.
    const config = loadPostsConfig({ DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused' });
    runner = new ImportRunner(imports, storage, config, settings, writer, {} as ArchiveRestore);
  });
  afterEach(async () => {
    await runner?.onApplicationShutdown();
    await rm(dir, { recursive: true, force: true });
  });

  const started = async (file: string, options: unknown = {}) => {
    const fileKey = `private/imports/${Math.random().toString(36).slice(2)}`;
    await storage.put(fileKey, Buffer.from(file), { contentType: 'application/octet-stream' });
    return { fileKey, report: await runner.start({ fileKey, options }) };
  };
  const run = (id: string, attempt = 1) => runner.run({ id, data: { id }, attempt });

  it('imports each post of a WordPress file, skips what is not a post, reports, and removes the file', async () => {
    const { fileKey, report } = await started(
      wxr(item(1, 'First'), item(2, 'Second'), item(3, 'A page', 'publish', 'page'), item(4, 'Broken')),
    );
    expect(report).toMatchObject({ state: 'queued', format: 'wxr', total: 0 });
    await run(report.id);
    expect(await runner.report(report.id)).toMatchObject({
      state: 'done',
      percent: 100,
      total: 3,
      imported: 2,
      failed: 1,
      skipped: 1,
      skippedBy: { page: 1 },
      errors: [{ item: 'Broken', message: 'refused by the form' }],
    });
    expect(written.map((p) => [p.title, p.status, p.leaf.labels[0]])).toEqual([
      ['First', 'published', 'More'],
      ['Second', 'published', 'More'],
    ]);
    expect(await storage.stat(fileKey)).toBeNull();
  });

  it('skips drafts when asked, and a resumed run skips the items already handled', async () => {
    const { report } = await started(
      wxr(item(1, 'Done before'), item(2, 'Draft', 'draft'), item(3, 'Last')),
      {
        drafts: 'skip',
      },
    );
    const row = imports.rows.get(report.id)!;
    row.report = { ...row.report, processed: 1, postsDone: 1, imported: 1 };
    await run(report.id);
    expect(written.map((p) => p.title)).toEqual(['Last']);
    expect(await runner.report(report.id)).toMatchObject({
      state: 'done',
      imported: 2,
      skipped: 1,
      skippedBy: { draft: 1 },
    });
  });

  it('refuses a file of no known format and keeps nothing of it', async () => {
    const fileKey = 'private/imports/unknown';
    await storage.put(fileKey, Buffer.from('just some text'), { contentType: 'text/plain' });
    await expect(runner.start({ fileKey })).rejects.toBeInstanceOf(RpcError);
    expect(await storage.stat(fileKey)).toBeNull();
    expect(imports.rows.size).toBe(0);
  });

  it('an import whose three tries crashed their process ends failed at the next, with the reason', async () => {
    const { fileKey, report } = await started(wxr(item(1, 'Never')));
    for (let i = 0; i < 3; i++) await imports.claimAttempt(report.id);
    await run(report.id);
    expect(await runner.report(report.id)).toMatchObject({
      state: 'failed',
      reason: 'The import stopped after 3 tries that crashed or ran past the time budget',
    });
    expect(written).toEqual([]);
    expect(await storage.stat(fileKey)).toBeNull();
  });
});
