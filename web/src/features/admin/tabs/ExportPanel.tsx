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

/**
 * "Export everything": the dashboard asks for a one-time link and the browser downloads the
 * .zip with it itself (a form post with the link and the session, checked again by the
 * server), saving it straight to disk with its own progress, however large.
 */
export function ExportPanel() {
  const api = useApi();
  const { session } = useSession();
  const { pending, message, submit } = useSubmit();

  const start = () =>
    submit(
      async () => {
        const link = await api.request<{ action: string; token: string }>('/api/admin/export/link', {
          method: 'POST',
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
        {pending ? 'Preparing...' : 'Export everything'}
      </button>
      {message && <StatusLine message={message} />}
    </section>
  );
}
