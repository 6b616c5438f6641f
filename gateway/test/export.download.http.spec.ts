/**
 * Getting an export's archive, through the real gateway and services: the dashboard's
 * one-time download link (used once, on whichever gateway replica, only with the session that
 * asked for it, still valid and still an admin's), a finished archive kept a day and then
 * removed, and every export route for admins only (the archive never served as an upload).
 */
import type { ExportReport } from '@blog/contracts';
import type { INestApplication } from '@nestjs/common';
import { freePort } from '@blog/server-kit/testing';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { createGateway, loadGatewayConfig } from '../src/index.js';
import { useExportStack } from './support/export-stack.js';
import { api, loginAs, type TestStack } from './support/test-stack.js';
import { unzip } from './support/zip.js';

describe('export downloads', () => {
  const rig = useExportStack();
  const { finishedExport } = rig;
  let stack: TestStack;
  let admin: string;
  beforeAll(() => ({ stack, admin } = rig));

  describe("the dashboard's one-time download", () => {
    /** A second gateway replica over the same services: what one replica used, the other refuses. */
    let replica: INestApplication;
    let replicaUrl: string;

    beforeAll(async () => {
      const port = await freePort();
      replica = await createGateway(loadGatewayConfig({ ...stack.env, PORT: String(port) }), stack.env);
      replicaUrl = `http://127.0.0.1:${port}`;
    });
    afterAll(() => replica?.close());

    /** A finished export whose archive the links download. */
    let exported: ExportReport;
    beforeAll(async () => {
      exported = await finishedExport();
    }, 60_000);

    const askLink = async (session: string) => {
      const answer = await api(stack, '/api/admin/export/link', {
        method: 'POST',
        token: session,
        body: { id: exported.id },
      });
      expect(answer.status).toBe(200);
      return answer.json as unknown as { action: string; token: string; expiresInSeconds: number };
    };
    /** What the dashboard's form posts: the link's token and the session, in the body. */
    const post = (base: string, action: string, fields: Record<string, string>) =>
      fetch(`${base}${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });

    it('answers the zip once, on whichever replica, with no token in any URL', async () => {
      const link = await askLink(admin);
      expect(link.action).toBe('/api/admin/export/download');
      expect(link.expiresInSeconds).toBe(60);
      const first = await post(stack.baseUrl, link.action, { token: link.token, session: admin });
      expect(first.status).toBe(200);
      expect(first.headers.get('content-disposition')).toMatch(/^attachment; filename="blog-export-/);
      expect((await unzip(Buffer.from(await first.arrayBuffer()))).has('blog.json')).toBe(true);
      // Used: refused on this replica and on the other one.
      const again = await post(replicaUrl, link.action, { token: link.token, session: admin });
      expect(again.status).toBe(401);
      expect((await post(stack.baseUrl, link.action, { token: link.token, session: admin })).status).toBe(
        401,
      );

      // A fresh link used on the other replica first: refused here.
      const other = await askLink(admin);
      expect((await post(replicaUrl, other.action, { token: other.token, session: admin })).status).toBe(200);
      expect((await post(stack.baseUrl, other.action, { token: other.token, session: admin })).status).toBe(
        401,
      );

      // A link is only for an export that exists and is finished.
      const unknown = await api(stack, '/api/admin/export/link', {
        method: 'POST',
        token: admin,
        body: { id: '00000000-0000-4000-8000-000000000000' },
      });
      expect(unknown.status).toBe(404);

      // The token is never a session, and the old query-string download is gone.
      expect((await api(stack, '/api/auth/account', { token: link.token })).status).toBe(401);
      expect((await fetch(`${stack.baseUrl}/api/admin/export/download?t=${link.token}`)).status).toBe(404);
    });

    it("needs the session that asked, still valid and still an admin's, checked at download", async () => {
      const link = await askLink(admin);
      expect((await post(stack.baseUrl, link.action, { token: link.token })).status).toBe(401);
      expect((await post(stack.baseUrl, link.action, { token: 'forged', session: admin })).status).toBe(401);
      expect((await post(stack.baseUrl, link.action, { session: admin })).status).toBe(401);
      // Another account's valid session does not carry this link.
      await api(stack, '/api/auth/register', {
        body: { username: 'second-admin', password: 'second-password-1' },
      });
      const id = (
        (await api(stack, '/api/auth/users', { token: admin })).json as { id: string; username: string }[]
      ).find((u) => u.username === 'second-admin')!.id;
      expect(
        (await api(stack, `/api/auth/users/${id}`, { method: 'PUT', body: { role: 'admin' }, token: admin }))
          .status,
      ).toBe(200);
      const second = await loginAs(stack, 'second-admin', 'second-password-1');
      expect((await post(stack.baseUrl, link.action, { token: link.token, session: second })).status).toBe(
        401,
      );

      // Signed out everywhere on one replica; the other had just checked the session (cached).
      const mine = await loginAs(stack, 'second-admin', 'second-password-1');
      const unused = await askLink(mine);
      expect(
        (await fetch(`${replicaUrl}/api/auth/users`, { headers: { authorization: `Bearer ${mine}` } }))
          .status,
      ).toBe(200);
      expect((await api(stack, '/api/auth/sessions/revoke', { method: 'POST', token: mine })).status).toBe(
        200,
      );
      expect((await post(replicaUrl, unused.action, { token: unused.token, session: mine })).status).toBe(
        401,
      );

      // Demoted on one replica while the link was out: refused on the other.
      const current = await loginAs(stack, 'second-admin', 'second-password-1');
      const pending = await askLink(current);
      expect(
        (await fetch(`${replicaUrl}/api/auth/users`, { headers: { authorization: `Bearer ${current}` } }))
          .status,
      ).toBe(200);
      expect(
        (await api(stack, `/api/auth/users/${id}`, { method: 'PUT', body: { role: 'user' }, token: admin }))
          .status,
      ).toBe(200);
      expect(
        (await post(replicaUrl, pending.action, { token: pending.token, session: current })).status,
      ).toBe(401);

      // None of the refusals used the admin's link up.
      expect((await post(replicaUrl, link.action, { token: link.token, session: admin })).status).toBe(200);
    });
  });

  it('keeps a finished archive a day: the next export after that removes it, and its download is gone', async () => {
    const old = await finishedExport();
    const archiveFile = join(stack.env.DATA_DIR!, 'uploads', 'private', 'exports', `${old.id}.zip`);
    expect((await stat(archiveFile)).size).toBe(old.bytes);
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      await db.query(`UPDATE posts.exports SET updated_at = now() - interval '25 hours' WHERE id = $1`, [
        old.id,
      ]);
    } finally {
      await db.end();
    }
    const fresh = await finishedExport();
    expect((await api(stack, `/api/admin/export/jobs/${old.id}`, { token: admin })).status).toBe(404);
    await expect(stat(archiveFile)).rejects.toMatchObject({ code: 'ENOENT' });
    const link = await api(stack, '/api/admin/export/link', {
      method: 'POST',
      token: admin,
      body: { id: old.id },
    });
    expect(link.status).toBe(404);
    const download = await fetch(`${stack.baseUrl}/api/admin/export/jobs/${fresh.id}/archive`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect([download.status, Number(download.headers.get('content-length'))]).toEqual([200, fresh.bytes]);
    await download.arrayBuffer();
  });

  it('is for admins only', async () => {
    const start = (token: string) => api(stack, '/api/admin/export', { method: 'POST', token });
    expect((await start('')).status).toBe(401);
    const { id } = (await finishedExport()) as ExportReport;
    await api(stack, '/api/auth/register', {
      body: { username: 'exporter', password: 'exporter-password-1' },
    });
    const user = await loginAs(stack, 'exporter', 'exporter-password-1');
    expect((await start(user)).status).toBe(403);
    // The archive waits in private storage: never served as an upload.
    expect((await fetch(`${stack.baseUrl}/uploads/private/exports/${id}.zip`)).status).toBe(404);
    for (const path of [`/api/admin/export/jobs/${id}`, `/api/admin/export/jobs/${id}/archive`]) {
      expect((await api(stack, path, { token: '' })).status).toBe(401);
      expect((await api(stack, path, { token: user })).status).toBe(403);
    }
    expect((await api(stack, '/api/admin/export/link', { method: 'POST', token: user })).status).toBe(403);
  });
});
