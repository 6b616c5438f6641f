import { useId, useRef, useState, type FormEvent } from 'react';
import type { BlocklistImportReport } from '@blog/contracts/social';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine } from '../../../components/ui';
import { useSession } from '../../../session/SessionContext';

/**
 * Mastodon's domain-block CSV in and out: Import blocks each suspended server of a file (its
 * comments go too) and says what it did, line by line for the wrong ones; Export downloads the
 * blocked servers. `onImported` reloads the list.
 */
export function BlocklistTransfer({ onImported }: { onImported(): void }) {
  const api = useApi();
  const { session } = useSession();
  const fileId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState<'import' | 'export' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<BlocklistImportReport | null>(null);

  const upload = async (event: FormEvent) => {
    event.preventDefault();
    const file = input.current?.files?.[0];
    if (!file) return setError('Choose a CSV file first.');
    setBusy('import');
    setError(null);
    setReport(null);
    try {
      const form = new FormData();
      form.append('file', file);
      setReport(
        await api.request<BlocklistImportReport>('/api/admin/fediverse/blocks/import', {
          method: 'POST',
          form,
        }),
      );
      onImported();
    } catch (failure) {
      setError(errorMessage(failure, 'The blocklist could not be imported.'));
    } finally {
      setBusy(null);
    }
  };

  // With the session (a plain link could not send it).
  const download = async () => {
    setBusy('export');
    setError(null);
    try {
      const response = await fetch('/api/admin/fediverse/blocks/export', {
        headers: { Authorization: `Bearer ${session?.token ?? ''}` },
      });
      if (!response.ok) throw new Error(`The export failed (${response.status})`);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = 'domain_blocks.csv';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : 'The export failed');
    } finally {
      setBusy(null);
    }
  };

  return (
    <form className="fediverse-blocklist" onSubmit={(event) => void upload(event)}>
      <label htmlFor={fileId}>Blocklist (Mastodon&apos;s domain-block CSV)</label>
      <input id={fileId} ref={input} type="file" accept=".csv,text/csv" />
      <button type="submit" className="button button-secondary" disabled={busy !== null}>
        {busy === 'import' ? 'Importing...' : 'Import'}
      </button>
      <button
        type="button"
        className="button button-secondary"
        disabled={busy !== null}
        onClick={() => void download()}
      >
        {busy === 'export' ? 'Exporting...' : 'Export'}
      </button>
      {error && <ErrorLine error={error} />}
      <div role="status">
        {report && (
          <>
            <p>
              {report.added} {report.added === 1 ? 'server' : 'servers'} blocked, {report.skipped} skipped
              (already blocked, or silence and noop rows), {report.removedComments}{' '}
              {report.removedComments === 1 ? 'comment' : 'comments'} removed.
            </p>
            {report.errors.length > 0 && (
              <ul>
                {report.errors.map((line) => (
                  <li key={line.line}>
                    Line {line.line}: {line.message}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
    </form>
  );
}
