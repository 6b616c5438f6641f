/**
 * What the export specs (export.*.http.spec.ts) share: a stack with its admin, a post written
 * through the admin's form, and an export run to its end (its report polled) and downloaded.
 */
import type { ExportReport, PostView } from '@blog/contracts';
import { fields, multipart, type Part } from './media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './test-stack.js';

export interface ExportStack {
  stack: TestStack;
  admin: string;
  /** A post made through POST /api/posts with these form fields and files (201, or it throws). */
  create(values: Record<string, string>, files?: Part[]): Promise<PostView>;
  /** An export run to its end (its report polled), started by `token`. */
  finishedExport(token?: string): Promise<ExportReport>;
  /** A finished export's archive, downloaded: the response, unread. */
  exportZip(token?: string): Promise<Response>;
}

/**
 * The file's export stack, started before its tests (and before any beforeAll declared after
 * this call) and stopped after them; its functions may be taken out of the answer at once.
 */
export function useExportStack(): ExportStack {
  const rig: ExportStack = {
    async create(values, files = []) {
      const { body, contentType } = multipart([...fields(values), ...files]);
      const response = await fetch(`${rig.stack.baseUrl}/api/posts`, {
        method: 'POST',
        headers: { 'content-type': contentType, authorization: `Bearer ${rig.admin}` },
        body,
      });
      if (response.status !== 201)
        throw new Error(`create answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as PostView;
    },
    async finishedExport(token = rig.admin) {
      const started = await api(rig.stack, '/api/admin/export', { method: 'POST', token });
      expect([started.status, started.json]).toEqual([
        202,
        expect.objectContaining({ id: expect.any(String), state: expect.any(String) }),
      ]);
      const { id } = started.json as unknown as ExportReport;
      for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
        const report = (await api(rig.stack, `/api/admin/export/jobs/${id}`, { token }))
          .json as unknown as ExportReport;
        if (report.state === 'done' || report.state === 'failed') return report;
        if (Date.now() > deadline) throw new Error(`export still ${report.state}: ${JSON.stringify(report)}`);
      }
    },
    async exportZip(token = rig.admin) {
      const report = await rig.finishedExport(token);
      expect(report).toMatchObject({
        state: 'done',
        percent: 100,
        posts: report.total,
        bytes: expect.any(Number),
      });
      return fetch(`${rig.stack.baseUrl}/api/admin/export/jobs/${report.id}/archive`, {
        headers: { authorization: `Bearer ${token}` },
      });
    },
  } as Partial<ExportStack> as ExportStack;

  beforeAll(async () => {
    rig.stack = await startTestStack();
    rig.admin = await loginAs(rig.stack, ADMIN.username, ADMIN.password);
  }, 60_000);
  afterAll(() => rig.stack?.stop());
  return rig;
}
