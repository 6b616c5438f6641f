import type { ExportReport } from '@blog/contracts';

/**
 * The whole blog's archive as a script gets it: an export started, its report polled until
 * it ends, then its archive downloaded with the bearer token (the response, unread).
 */
export async function exportArchive(baseUrl: string, token: string, withinMs = 60_000): Promise<Response> {
  const headers = { authorization: `Bearer ${token}` };
  const started = await fetch(`${baseUrl}/api/admin/export`, { method: 'POST', headers });
  let report = (await started.json()) as ExportReport;
  if (started.status !== 202)
    throw new Error(`export start answered ${started.status}: ${JSON.stringify(report)}`);
  for (const deadline = Date.now() + withinMs; report.state !== 'done';) {
    if (report.state === 'failed') throw new Error(`export failed: ${report.reason}`);
    if (Date.now() > deadline) throw new Error(`export still ${report.state}: ${JSON.stringify(report)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    report = (await (
      await fetch(`${baseUrl}/api/admin/export/jobs/${report.id}`, { headers })
    ).json()) as ExportReport;
  }
  return fetch(`${baseUrl}/api/admin/export/jobs/${report.id}/archive`, { headers });
}
