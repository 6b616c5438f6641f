import type { ImportReport } from '@blog/contracts/import';
import { siteNodes, type SiteConfig } from '@blog/contracts/site';
import { useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { useSession } from '../../../session/SessionContext';
import { getSite } from '../lib/adminApi';
import { UploadError } from '../lib/saveErrors';
import { sendForm } from '../lib/upload';
import { ErrorLine, Field, SubmitButton, useSubmit } from '../../../components/ui';

/** A big export takes a while to send: an hour at most. */
const IMPORT_UPLOAD_TIMEOUT_MS = 60 * 60 * 1000;

interface Mapping {
  slug: string;
  node: string;
}

const finished = (report: ImportReport | null) => report?.state === 'done' || report?.state === 'failed';

/**
 * Bringing a blog in: a WordPress (WXR) or Ghost export, its categories mapped onto the tree,
 * sent with its upload progress, then the import's progress and report. The import's id is
 * in the URL (?import=), so a reload or a shared link shows the same import.
 */
export function ImportPanel() {
  const api = useApi();
  const { session, logout } = useSession();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const importId = params.get('import');
  const [site, setSite] = useState<SiteConfig | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [mappings, setMappings] = useState<Mapping[]>([{ slug: '', node: '' }]);
  const [sourceUrl, setSourceUrl] = useState('');
  const [drafts, setDrafts] = useState<'import' | 'skip'>('import');
  /** The file's upload, in percent, while it is sent. */
  const [sent, setSent] = useState(0);
  const { pending: sending, message, setMessage, submit } = useSubmit();
  const error = message?.text;
  const [report, setReport] = useState<ImportReport | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    getSite(api, controller.signal).then(setSite, () => undefined);
    return () => controller.abort();
  }, [api]);

  // Follows the import in the URL until it is done or failed.
  useEffect(() => {
    if (!importId) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await api.request<ImportReport>(`/api/admin/import/${encodeURIComponent(importId)}`);
        if (stopped) return;
        setReport(next);
        setMessage(null);
        if (!finished(next)) timer = setTimeout(() => void poll(), 1000);
      } catch (cause) {
        if (stopped) return;
        setMessage({ kind: 'error', text: errorMessage(cause, 'Could not read the import') });
        timer = setTimeout(() => void poll(), 3000);
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [api, importId, setMessage]);

  const nodes = site ? siteNodes(site) : [];
  const start = (file: File) =>
    submit(
      async () => {
        setReport(null);
        setSent(0);
        await startImport(file);
      },
      {
        failure: (cause) =>
          cause instanceof UploadError
            ? (cause.serverMessage ?? 'The file could not be sent: check the connection and try again')
            : errorMessage(cause, 'The import could not start'),
      },
    );
  /** Sends the file with the category map; the import it starts goes into the URL (?import=). */
  const startImport = async (file: File) => {
    const form = new FormData();
    const categoryMap = Object.fromEntries(
      mappings.filter((m) => m.slug.trim() && m.node).map((m) => [m.slug.trim(), m.node]),
    );
    form.append('categoryMap', JSON.stringify(categoryMap));
    form.append('sourceUrl', sourceUrl.trim());
    form.append('drafts', drafts);
    form.append('file', file);
    const started = await sendForm<ImportReport>({
      method: 'POST',
      url: '/api/admin/import',
      body: form,
      token: session?.token ?? null,
      timeoutMs: IMPORT_UPLOAD_TIMEOUT_MS,
      onProgress: setSent,
      onUploaded: () => setSent(100),
      onUnauthorized: () => {
        logout();
        navigate('/login', { replace: true });
      },
    });
    setReport(started);
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set('import', started.id);
      return next;
    });
  };

  const busy = sending || (importId !== null && report !== null && !finished(report));
  return (
    <section className="card" aria-labelledby="import-heading">
      <h2 id="import-heading">Import</h2>
      <p>
        Bring posts in from WordPress (Tools → Export, the .xml file), Ghost (Settings → Labs → Export, the
        .json file) or this blog&apos;s own export (the .zip file, to restore everything). Pictures and videos
        are fetched from the old site; old links lead to the new pages. Importing the same file again updates
        the posts instead of copying them.
      </p>
      <form
        className="form admin-import"
        onSubmit={(event) => {
          event.preventDefault();
          if (file) void start(file);
        }}
      >
        <Field id="import-file" label="Export file">
          <input
            id="import-file"
            type="file"
            accept=".xml,.json,.zip,application/xml,text/xml,application/json,application/zip"
            onChange={(event) => setFile(event.target.files?.[0] ?? null)}
          />
        </Field>
        <fieldset className="import-map">
          <legend>Categories</legend>
          <p className="field-hint">
            Where each WordPress category (or Ghost tag), by its slug, goes in this blog. Anything not listed
            goes to More and is kept as a tag.
          </p>
          {mappings.map((mapping, i) => (
            <div className="import-map-row" key={i}>
              <Field id={`map-slug-${i}`} label={<>Slug {i + 1}</>}>
                <input
                  id={`map-slug-${i}`}
                  value={mapping.slug}
                  placeholder="cars"
                  onChange={(event) =>
                    setMappings(mappings.map((m, j) => (j === i ? { ...m, slug: event.target.value } : m)))
                  }
                />
              </Field>
              <Field id={`map-node-${i}`} label="Goes to">
                <select
                  id={`map-node-${i}`}
                  value={mapping.node}
                  onChange={(event) =>
                    setMappings(mappings.map((m, j) => (j === i ? { ...m, node: event.target.value } : m)))
                  }
                >
                  <option value="">Choose a place</option>
                  {nodes.map((node) => (
                    <option key={node.id} value={node.id}>
                      {node.labels.join(' / ')}
                    </option>
                  ))}
                </select>
              </Field>
            </div>
          ))}
          <button
            type="button"
            className="button button-secondary"
            onClick={() => setMappings([...mappings, { slug: '', node: '' }])}
          >
            Add a category
          </button>
        </fieldset>
        <Field id="import-source" label="Old site address (optional)">
          <input
            id="import-source"
            type="url"
            placeholder="https://old.example.com"
            value={sourceUrl}
            onChange={(event) => setSourceUrl(event.target.value)}
          />
        </Field>
        <Field id="import-drafts" label="Drafts">
          <select
            id="import-drafts"
            value={drafts}
            onChange={(event) => setDrafts(event.target.value as 'import' | 'skip')}
          >
            <option value="import">Import them as drafts</option>
            <option value="skip">Leave them out</option>
          </select>
        </Field>
        <SubmitButton pending={sending} pendingLabel="Sending..." disabled={!file || busy}>
          Import
        </SubmitButton>
      </form>
      {sending && (
        <div className="import-progress">
          <label htmlFor="import-upload-progress">Sending the file</label>
          <progress id="import-upload-progress" max={100} value={sent}>
            {sent}%
          </progress>
        </div>
      )}
      {error && <ErrorLine error={error} />}
      {importId && !report && !error && <p role="status">Loading the import...</p>}
      {report && <ImportReportView report={report} />}
    </section>
  );
}

function ImportReportView({ report }: { report: ImportReport }) {
  const skipped = Object.entries(report.skippedBy);
  return (
    <div className="import-report" aria-live="polite">
      <h3>
        {report.state === 'done'
          ? 'Import finished'
          : report.state === 'failed'
            ? 'Import failed'
            : report.state === 'queued'
              ? 'Import waiting to start'
              : 'Importing...'}
      </h3>
      <label htmlFor="import-progress">Progress</label>
      <progress id="import-progress" max={100} value={report.percent}>
        {report.percent}%
      </progress>
      <p role="status">
        {report.percent}% · {report.imported} imported, {report.updated} updated, {report.skipped} skipped,{' '}
        {report.failed} failed of {report.total} posts · pictures and videos: {report.media.downloaded}{' '}
        fetched, {report.media.failed} failed · {report.redirects} old addresses redirected
        {report.notes ? ` · ${report.notes} notes restored` : ''}
      </p>
      {report.reason && <ErrorLine error={report.reason} />}
      {skipped.length > 0 && <p>Skipped: {skipped.map(([why, n]) => `${n} ${why}`).join(', ')}</p>}
      {report.restricted.length > 0 && (
        <>
          <h4>Imported as drafts: restricted in the source</h4>
          <ul className="import-restricted">
            {report.restricted.map((r, i) => (
              <li key={i}>
                <strong>{r.item}</strong>: {r.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {report.errors.length > 0 && (
        <>
          <h4>Problems</h4>
          <ul className="import-errors">
            {report.errors.map((e, i) => (
              <li key={i}>
                <strong>{e.item}</strong>: {e.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
