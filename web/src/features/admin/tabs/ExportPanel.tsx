import { useState } from 'react';
import type { ExportReport } from '@blog/contracts/blog-archive';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { StatusLine, useSubmit } from '../../../components/ui';
import { useSession } from '../../../session/SessionContext';

/**
 * Posts a form the browser answers with a download (the server sends it as an attachment, so
 * the page stays): the tokens travel in the body, never in a URL, history or access log.
 */
function postDownload(action: string, fields: Record<string, string>): void {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = action;
  form.hidden = true;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
  form.remove();
}

/** How often the dashboard asks where a running export stands. */
const POLL_MS = 1000;

/**
 * "Export everything": the server writes the archive as a job (its progress shown on the
 * button), then the dashboard asks for a one-time link and the browser downloads the .zip
 * with it itself (a form post with the link and the session, checked again by the server),
 * saving it straight to disk with its own progress, however large.
 */
export function ExportPanel() {
  const api = useApi();
  const { session } = useSession();
  const { pending, message, submit } = useSubmit();
  const [percent, setPercent] = useState(0);

  const start = () =>
    submit(
      async () => {
        setPercent(0);
        let report = await api.request<ExportReport>('/api/admin/export', { method: 'POST' });
        while (report.state !== 'done') {
          if (report.state === 'failed') throw new Error(report.reason ?? 'The export failed');
          setPercent(report.percent);
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          report = await api.request<ExportReport>(`/api/admin/export/jobs/${report.id}`);
        }
        setPercent(100);
        const link = await api.request<{ action: string; token: string }>('/api/admin/export/link', {
          method: 'POST',
          body: { id: report.id },
        });
        postDownload(link.action, { token: link.token, session: session?.token ?? '' });
        return 'The download has started: your browser shows its progress.';
      },
      { failure: (error) => `Error: ${errorMessage(error, 'Could not start the export')}` },
    );

  return (
    <section className="card" aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p>
        Everything in one .zip: every post (also as Markdown files that open in any editor or move to Hugo,
        Jekyll or Eleventy), every picture and video as uploaded (without location data), the site settings,
        the users (without passwords) and the subscribers. A file whose location data cannot be removed is
        left out and named in the archive's blog.json. Import it here again to restore the blog.
      </p>
      <button type="button" className="button" disabled={pending} onClick={() => void start()}>
        {pending ? `Preparing... ${percent}%` : 'Export everything'}
      </button>
      {message && <StatusLine message={message} />}
    </section>
  );
}
