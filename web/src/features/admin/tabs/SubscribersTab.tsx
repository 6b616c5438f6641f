import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { SubscriberFrequency, SubscriberView } from '@blog/contracts/mail';
import type { SubscriberImportReport } from '@blog/contracts/newsletter';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { Pagination } from '../../../components/Pagination';
import { ErrorLine, LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { usePageParam } from '../../../hooks/usePageParam';
import { formatDateTime } from '../../../lib/format';
import { useSession } from '../../../session/SessionContext';
import {
  importStatus,
  importSubscribers,
  listSubscribers,
  resetBounce,
  subscriberCounts,
  SUBSCRIBERS_PAGE_SIZE,
  type SubscriberFilters,
} from './subscribersApi';
import './subscribers.css';

const STATUSES: [SubscriberFilters['status'], string][] = [
  ['', 'All'],
  ['confirmed', 'Confirmed'],
  ['pending', 'Pending'],
  ['unsubscribed', 'Unsubscribed'],
  ['bounced', 'Bounced'],
];
const FREQUENCIES: [SubscriberFilters['frequency'], string][] = [
  ['', 'All'],
  ['each-post', 'Every post'],
  ['weekly', 'Weekly digest'],
];
const FREQUENCY_LABEL: Record<SubscriberFrequency, string> = {
  'each-post': 'Every post',
  weekly: 'Weekly digest',
};
/** How often the tab asks how a running import stands. */
const POLL_MS = 1000;

const pick = <T extends string>(value: string | null, options: [T, string][]): T =>
  (options.find(([v]) => v === value)?.[0] ?? '') as T;

/** The filters live in the URL (`status`, `frequency`, `search`; the site's own search owns `q`), so a reload or a shared link keeps them. */
function useFilters(): [SubscriberFilters, (change: Partial<SubscriberFilters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters: SubscriberFilters = {
    status: pick(params.get('status'), STATUSES),
    frequency: pick(params.get('frequency'), FREQUENCIES),
    search: params.get('search') ?? '',
  };
  const change = (next: Partial<SubscriberFilters>) =>
    setParams((current) => {
      const copy = new URLSearchParams(current);
      const set = (name: string, value: string | undefined) => {
        if (value === undefined) return;
        if (value) copy.set(name, value);
        else copy.delete(name);
      };
      set('status', next.status);
      set('frequency', next.frequency);
      set('search', next.search?.trim());
      copy.delete('page'); // a new filter starts at page 1
      return copy;
    });
  return [filters, change];
}

function Counts({ reload }: { reload: number }) {
  const api = useApi();
  const state = useAsync((signal) => subscriberCounts(api, signal), [reload]);
  // The list below announces the loading once; the counts appear when they come.
  if (state.status === 'loading') return null;
  if (state.status === 'error')
    return <ErrorLine error={errorMessage(state.error, 'Failed to load the counts')} />;
  const { byStatus, byFrequency } = state.data;
  return (
    <dl className="subscriber-counts">
      <dt>Confirmed</dt>
      <dd>{byStatus.confirmed}</dd>
      <dt>Pending</dt>
      <dd>{byStatus.pending}</dd>
      <dt>Unsubscribed</dt>
      <dd>{byStatus.unsubscribed}</dd>
      <dt>Bounced</dt>
      <dd>{byStatus.bounced}</dd>
      <dt>Get every post</dt>
      <dd>{byFrequency['each-post']}</dd>
      <dt>Get the weekly digest</dt>
      <dd>{byFrequency.weekly}</dd>
    </dl>
  );
}

function ImportReport({ report }: { report: SubscriberImportReport }) {
  const running = report.state === 'running';
  return (
    <div className="import-report">
      <p role="status">
        {running ? 'Importing... ' : report.state === 'done' ? 'Import finished: ' : 'Import stopped: '}
        {report.lines} lines read, {report.added} added ({report.confirmed} confirmed, {report.pending} asked
        to confirm), {report.duplicates} duplicates, {report.invalid} invalid.
      </p>
      {report.error && <ErrorLine error={report.error} />}
      {report.errors.length > 0 && (
        <details>
          <summary>
            Refused lines ({report.errors.length === 100 ? 'the first 100' : report.errors.length})
          </summary>
          <ul>
            {report.errors.map((e) => (
              <li key={e.line}>
                Line {e.line}: {e.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function ImportForm({ onImported }: { onImported: () => void }) {
  const api = useApi();
  const fileRef = useRef<HTMLInputElement>(null);
  const [consented, setConsented] = useState(false);
  const [frequency, setFrequency] = useState<SubscriberFrequency>('weekly');
  const [report, setReport] = useState<SubscriberImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const poll = useRef<ReturnType<typeof setInterval> | undefined>(undefined);
  useEffect(() => () => clearInterval(poll.current), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const file = fileRef.current?.files?.[0];
    if (!file) return setError('Choose a CSV file');
    const id = crypto.randomUUID();
    setBusy(true);
    setError(null);
    setReport(null);
    poll.current = setInterval(() => {
      importStatus(api, id).then(
        (now) => setReport((shown) => (shown && shown.state !== 'running' ? shown : now)),
        () => undefined, // not started yet
      );
    }, POLL_MS);
    try {
      setReport(await importSubscribers(api, id, file, consented, frequency));
      onImported();
    } catch (failure) {
      setError(errorMessage(failure, 'The import failed'));
    } finally {
      clearInterval(poll.current);
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="subscriber-import-heading">
      <h3 id="subscriber-import-heading">Import</h3>
      <p>
        A CSV exported from Ghost, Substack, Mailchimp or Buttondown: the column named email (or Email
        Address).
      </p>
      <form className="form" onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor="subscriber-import-file">CSV file</label>
          <input id="subscriber-import-file" ref={fileRef} type="file" accept=".csv,text/csv" required />
        </div>
        <div className="field">
          <label>
            <input
              type="checkbox"
              checked={consented}
              onChange={(event) => setConsented(event.target.checked)}
            />{' '}
            These people agreed to get e-mail from this blog: subscribe them at once. Unchecked, each gets an
            e-mail asking to confirm, and only those who confirm are subscribed.
          </label>
        </div>
        <div className="field">
          <label htmlFor="subscriber-import-frequency">They get</label>
          <select
            id="subscriber-import-frequency"
            value={frequency}
            onChange={(event) => setFrequency(event.target.value as SubscriberFrequency)}
          >
            <option value="weekly">The weekly digest</option>
            <option value="each-post">Every new post</option>
          </select>
        </div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Importing...' : 'Import'}
        </button>
      </form>
      {error && <ErrorLine error={error} />}
      {report && <ImportReport report={report} />}
    </section>
  );
}

/** Downloads the CSV with the session (a plain link could not send it). */
function ExportButton() {
  const { session } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/api/admin/subscribers/export', {
        headers: { Authorization: `Bearer ${session?.token ?? ''}` },
      });
      if (!response.ok) throw new Error(`The export failed (${response.status})`);
      const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = name ?? 'subscribers.csv';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : 'The export failed');
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="button button-secondary"
        disabled={busy}
        onClick={() => void download()}
      >
        {busy ? 'Exporting...' : 'Export CSV'}
      </button>
      {error && <ErrorLine error={error} />}
    </>
  );
}

function Row({ subscriber, onReset }: { subscriber: SubscriberView; onReset: () => void }) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reset = async () => {
    setBusy(true);
    try {
      await resetBounce(api, subscriber.id);
      onReset();
    } catch (failure) {
      setError(errorMessage(failure, 'Reset failed'));
      setBusy(false);
    }
  };
  return (
    <tr>
      <td>{subscriber.email}</td>
      <td>
        {subscriber.status}
        {subscriber.bounced && (
          <>
            {' '}
            <span className="badge badge-warning">Bounced</span>{' '}
            <button
              type="button"
              className="button button-small button-secondary"
              disabled={busy}
              aria-label={`Reset the bounce of ${subscriber.email}`}
              onClick={() => void reset()}
            >
              Reset
            </button>
            {error && <ErrorLine error={error} />}
          </>
        )}
      </td>
      <td>{FREQUENCY_LABEL[subscriber.frequency]}</td>
      <td>{formatDateTime(subscriber.created_at)}</td>
    </tr>
  );
}

/** The owner's subscribers (docs/product.md#mail): counts, filters in the URL, import, export, bounces. */
export function SubscribersTab() {
  const api = useApi();
  const [page, setPage] = usePageParam();
  const [filters, setFilters] = useFilters();
  const [search, setSearch] = useState(filters.search);
  const [reload, setReload] = useState(0);
  const state = useAsync(
    (signal) => listSubscribers(api, page, filters, signal),
    [page, filters.status, filters.frequency, filters.search, reload],
  );
  const changed = () => setReload((n) => n + 1);
  const filtered = Boolean(filters.status || filters.frequency || filters.search);

  return (
    <section className="card" aria-labelledby="subscribers-heading">
      <h2 id="subscribers-heading">Subscribers</h2>
      <Counts reload={reload} />
      <form
        className="form form-inline admin-filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters({ search });
        }}
      >
        <div className="field">
          <label htmlFor="subscriber-search">Search addresses</label>
          <input
            id="subscriber-search"
            type="search"
            maxLength={254}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
        <button type="submit" className="button button-small">
          Search subscribers
        </button>
        <div className="field">
          <label htmlFor="subscriber-status">Status</label>
          <select
            id="subscriber-status"
            value={filters.status}
            onChange={(event) => setFilters({ status: event.target.value as SubscriberFilters['status'] })}
          >
            {STATUSES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="subscriber-frequency">How often</label>
          <select
            id="subscriber-frequency"
            value={filters.frequency}
            onChange={(event) =>
              setFilters({ frequency: event.target.value as SubscriberFilters['frequency'] })
            }
          >
            {FREQUENCIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </form>
      <div className="admin-actions">
        <ExportButton />
      </div>
      {state.status === 'loading' && <p role="status">Loading...</p>}
      {state.status === 'error' && (
        <LoadFailed error={errorMessage(state.error, 'Failed to load subscribers')} onRetry={changed} />
      )}
      {state.status === 'ready' &&
        (state.data.items.length === 0 ? (
          <p className="empty">{filtered ? 'No subscribers match these filters.' : 'No subscribers yet.'}</p>
        ) : (
          <>
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">
                  Subscribers, newest first: {state.data.total} in all
                </caption>
                <thead>
                  <tr>
                    <th scope="col">E-mail</th>
                    <th scope="col">Status</th>
                    <th scope="col">How often</th>
                    <th scope="col">Subscribed</th>
                  </tr>
                </thead>
                <tbody>
                  {state.data.items.map((s) => (
                    <Row key={s.id} subscriber={s} onReset={changed} />
                  ))}
                </tbody>
              </table>
            </div>
            <Pagination
              page={page}
              pageSize={SUBSCRIBERS_PAGE_SIZE}
              total={state.data.total}
              onPageChange={setPage}
              label="Subscribers pages"
            />
          </>
        ))}
      <ImportForm onImported={changed} />
    </section>
  );
}
