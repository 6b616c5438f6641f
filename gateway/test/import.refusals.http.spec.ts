/**
 * What an import refuses, through the real gateway and services: a file that is no export
 * (400), hostile or broken WXR and JSON (the import fails with the reason), a picture inside
 * the network, directly or through a redirect (refused, and told like a closed port), and
 * anyone but an admin.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { item, useImportStack, wxr } from './support/import-stack.js';
import { api, loginAs, type TestStack } from './support/test-stack.js';

describe('import refusals', () => {
  const rig = useImportStack();
  const { upload, finished, byTitle, servedInside } = rig;
  let stack: TestStack;
  let admin: string;
  let filesUrl: string;
  let insideUrl: string;
  let wxrFile: string;
  beforeAll(() => ({ stack, admin, filesUrl, insideUrl, wxrFile } = rig));

  it('refuses what is not an export, and fails hostile or broken files with the reason', async () => {
    expect(await upload('notes.txt', 'just some text')).toMatchObject({
      status: 400,
      json: {
        error:
          'The file is neither a WordPress export (WXR), a Ghost export (JSON) nor an export of this blog (zip)',
      },
    });
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><item><title>&lol3;</title></item></channel></rss>`;
    const external = `<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><item><title>&xxe;</title><wp:post_type>post</wp:post_type></item></channel></rss>`;
    for (const hostile of [laughs, external]) {
      const report = await finished((await upload('evil.xml', hostile)).json.id as string);
      expect(report).toMatchObject({ state: 'failed', imported: 0 });
      expect(report.reason).toMatch(/DOCTYPE/);
    }
    const truncated = wxrFile.slice(0, Math.floor(wxrFile.length * 0.6));
    const cut = await finished((await upload('cut.xml', truncated)).json.id as string);
    expect(cut).toMatchObject({ state: 'failed' });
    expect(cut.reason).toMatch(/truncated|not well-formed/);
    const brokenJson = await finished(
      (await upload('ghost.json', '{"db": [ {"data": {"posts": [')).json.id as string,
    );
    expect(brokenJson).toMatchObject({ state: 'failed' });
    expect(brokenJson.reason).toMatch(/not valid JSON/);
    expect((await upload('export.xml', wxrFile, { categoryMap: '{not json' })).status).toBe(400);
  }, 120_000);

  it('never fetches inside the network: a redirect there is refused, and refused reads like closed', async () => {
    // A port that was open a moment ago and is closed now.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
    const started = await upload(
      'inside.xml',
      wxr([
        item({
          id: 900,
          title: 'Inside pictures',
          name: 'inside-pictures',
          gmt: '2021-01-01 10:00:00',
          content: `<p><img src="${filesUrl}/pic.jpg" alt="redirected"></p><p><img src="${insideUrl}/admin/secret.jpg" alt="direct"></p><p><img src="${closedUrl}/x.jpg" alt="closed"></p>`,
        }),
      ]),
    );
    expect(started.status).toBe(202);
    const report = await finished(started.json.id as string);
    expect(report).toMatchObject({ state: 'done', imported: 1, media: { downloaded: 0, failed: 3 } });
    const messages = report.errors.map((e) => `${e.item}: ${e.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        `Inside pictures: ${filesUrl}/pic.jpg: refused: private address or unreachable`,
        `Inside pictures: ${insideUrl}/admin/secret.jpg: refused: private address or unreachable`,
        `Inside pictures: ${closedUrl}/x.jpg: refused: private address or unreachable`,
      ]),
    );
    expect(JSON.stringify(report)).not.toContain('HTTP 200');
    expect(servedInside).toEqual([]);
    const post = await byTitle('Inside pictures');
    expect(post.media).toHaveLength(0);
    expect(post.content).not.toContain('media:');
  }, 60_000);

  it('is for admins only', async () => {
    expect((await upload('export.xml', wxrFile, {}, '')).status).toBe(401);
    await api(stack, '/api/auth/register', {
      body: { username: 'importer', password: 'importer-password-1' },
    });
    const user = await loginAs(stack, 'importer', 'importer-password-1');
    expect((await upload('export.xml', wxrFile, {}, user)).status).toBe(403);
    expect(
      (await api(stack, '/api/admin/import/00000000-0000-4000-8000-000000000000', { token: user })).status,
    ).toBe(403);
    expect(
      (await api(stack, '/api/admin/import/00000000-0000-4000-8000-000000000000', { token: admin })).status,
    ).toBe(404);
  });
});
