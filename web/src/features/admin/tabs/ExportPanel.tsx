import { useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';

type State = { kind: 'idle' } | { kind: 'starting' } | { kind: 'started' } | { kind: 'error'; text: string };

/**
 * "Export everything": the dashboard asks for a one-time link and the browser downloads the
 * .zip from it itself, saving it straight to disk with its own progress, however large.
 */
export function ExportPanel() {
  const api = useApi();
  const [state, setState] = useState<State>({ kind: 'idle' });

  const start = async () => {
    setState({ kind: 'starting' });
    try {
      const { url } = await api.request<{ url: string }>('/api/admin/export/link', { method: 'POST' });
      window.location.assign(url);
      setState({ kind: 'started' });
    } catch (error) {
      setState({ kind: 'error', text: `Error: ${errorMessage(error, 'Could not start the export')}` });
    }
  };

  return (
    <section className="card" aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p>
        Everything in one .zip: every post (also as Markdown files that open in any editor or move to Hugo,
        Jekyll or Eleventy), every picture and video as uploaded (without location data), the site settings,
        the users (without passwords) and the subscribers. Import it here again to restore the blog.
      </p>
      <button
        type="button"
        className="button"
        disabled={state.kind === 'starting'}
        onClick={() => void start()}
      >
        {state.kind === 'starting' ? 'Preparing...' : 'Export everything'}
      </button>
      {state.kind === 'started' && (
        <p role="status" className="form-success">
          The download has started: your browser shows its progress.
        </p>
      )}
      {state.kind === 'error' && (
        <p role="alert" className="form-error">
          {state.text}
        </p>
      )}
    </section>
  );
}
