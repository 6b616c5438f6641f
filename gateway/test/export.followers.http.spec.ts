/**
 * The fediverse followers in the blog archive, through the real gateway and services: the
 * accepted ones listed in blog.json as handles (with actor and since), pending ones left out;
 * the import of that archive restores none of them and says so; and an export while the
 * social service is down fails with a reason that names it, rather than leaving them out.
 */
import { blogArchiveSchema, Patterns, type FollowResult, type ImportReport } from '@blog/contracts';
import { rpcTestClient, type RpcTestClient } from '@blog/server-kit/testing';
import { useExportStack } from './support/export-stack.js';
import { multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';
import { unzip } from './support/zip.js';

/** A Follow as the federation hands it to the social service; `handle: null` for an actor that named none. */
const follow = (user: string, host: string, options: { requireApproval?: boolean; handle?: null } = {}) => ({
  actorUri: `https://${host}/users/${user}`,
  handle: options.handle === null ? null : `@${user}@${host}`,
  name: user,
  url: `https://${host}/@${user}`,
  inbox: `https://${host}/users/${user}/inbox`,
  sharedInbox: `https://${host}/inbox`,
  followActivityId: `https://${host}/follows/${user}`,
  requireApproval: options.requireApproval ?? false,
});

describe('followers in the export', () => {
  const rig = useExportStack();
  let social: RpcTestClient;
  /** A second blog, its social service never started. */
  let lonely: TestStack;
  let lonelyAdmin: string;

  beforeAll(async () => {
    social = rpcTestClient(Number(rig.stack.env.SOCIAL_PORT));
    lonely = await startTestStack({}, ['social']);
    lonelyAdmin = await loginAs(lonely, ADMIN.username, ADMIN.password);
  }, 60_000);
  afterAll(async () => {
    social?.close();
    await lonely?.stop();
  });

  let zip: Buffer;

  it('lists the accepted followers as handles with their actor and since, oldest first; pending ones not', async () => {
    for (const command of [
      follow('ada', 'mastodon.example'),
      follow('bob', 'social.example'),
      follow('cyd', 'pending.example', { requireApproval: true }),
      follow('dee', 'nohandle.example', { handle: null }),
    ])
      expect(await social.send<FollowResult>(Patterns.social.follow, command)).toMatchObject({
        created: true,
      });

    const response = await rig.exportZip();
    expect(response.status).toBe(200);
    zip = Buffer.from(await response.arrayBuffer());
    const archive = blogArchiveSchema.parse(JSON.parse((await unzip(zip)).get('blog.json')!.toString()));
    expect(archive.followers).toEqual([
      {
        handle: '@ada@mastodon.example',
        actorUri: 'https://mastodon.example/users/ada',
        since: expect.any(String),
      },
      {
        handle: '@bob@social.example',
        actorUri: 'https://social.example/users/bob',
        since: expect.any(String),
      },
      { handle: null, actorUri: 'https://nohandle.example/users/dee', since: expect.any(String) },
    ]);
    for (const follower of archive.followers!) {
      const since = Date.parse(follower.since!);
      expect(Math.abs(Date.now() - since)).toBeLessThan(5 * 60_000);
    }
  }, 60_000);

  it('an import of the archive restores no follower and says why', async () => {
    expect(zip).toBeDefined();
    const { body, contentType } = multipart([
      { name: 'file', file: { filename: 'blog.zip', type: 'application/zip', data: zip } },
    ]);
    const started = await fetch(`${lonely.baseUrl}/api/admin/import`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${lonelyAdmin}` },
      body: new Uint8Array(body),
    });
    const first = (await started.json()) as ImportReport;
    expect([started.status, first.format]).toEqual([202, 'blog']);
    let report: ImportReport;
    for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 200))) {
      report = (await api(lonely, `/api/admin/import/${first.id}`, { token: lonelyAdmin }))
        .json as unknown as ImportReport;
      if (report.state === 'done' || report.state === 'failed') break;
      if (Date.now() > deadline) throw new Error(`import not finished: ${JSON.stringify(report)}`);
    }
    expect(report.state).toBe('done');
    expect(report.errors).toContainEqual({
      item: 'followers',
      message: expect.stringMatching(/^3 fediverse follower\(s\) not restored: .*follow it again/),
    });
  }, 60_000);

  it('fails, naming the social service, when it does not answer', async () => {
    const started = await api(lonely, '/api/admin/export', { method: 'POST', token: lonelyAdmin });
    expect(started.status).toBe(202);
    const { id } = started.json as unknown as { id: string };
    for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const report = (await api(lonely, `/api/admin/export/jobs/${id}`, { token: lonelyAdmin }))
        .json as unknown as {
        state: string;
        reason?: string;
      };
      if (report.state === 'failed') {
        expect(report.reason).toMatch(
          /fediverse followers could not be listed: the social service did not answer/,
        );
        break;
      }
      expect(report.state).not.toBe('done');
      if (Date.now() > deadline) throw new Error(`export still ${report.state}`);
    }
  }, 90_000);
});
