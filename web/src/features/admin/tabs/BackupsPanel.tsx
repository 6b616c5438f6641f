import type { BackupRunView } from '@blog/contracts/backups';
import { useEffect, useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine, LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { formatDateTime } from '../../../lib/format';
import {
  formatBytes,
  formatDuration,
  getBackup,
  listBackups,
  progressPercent,
  progressText,
  startBackup,
} from './backupsApi';
import './backups.css';

/** How often a running backup is asked where it stands. */
const POLL_MS = 1500;

/**
 * The blog's own backups (docs/product.md, the Backup tab): the last ones with their size,
 * target, duration and outcome, the next scheduled one, and "Back up now" with its progress in
 * a status region. A backup running when the tab opens (the schedule's, or another tab's) is
 * followed the same way.
 */
export function BackupsPanel() {
  const api = useApi();
  const [version, setVersion] = useState(0);
  const state = useAsync((signal) => listBackups(api, signal), [api, version]);
  const [running, setRunning] = useState<BackupRunView | null>(null);
  const [starting, setStarting] = useState(false);
  const [problem, setProblem] = useState('');
  const [outcome, setOutcome] = useState('');

  const listed =
    state.status === 'ready' ? state.data.items.find((run) => run.state === 'running') : undefined;
  const runningId = running?.id ?? listed?.id;

  // Follows the running backup until it ends, then reads the list again.
  useEffect(() => {
    if (!runningId) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const run = await getBackup(api, runningId, controller.signal);
        if (controller.signal.aborted) return;
        if (run.state === 'running') {
          setRunning(run);
          timer = setTimeout(() => void poll(), POLL_MS);
          return;
        }
        setRunning(null);
        setOutcome(
          run.state === 'done'
            ? `Backup done: ${formatBytes(run.bytes)} written.`
            : `The backup failed: ${run.error ?? 'no reason given'}`,
        );
        setVersion((v) => v + 1);
      } catch (error) {
        if (controller.signal.aborted) return;
        setProblem(errorMessage(error, 'Could not read the backup'));
        timer = setTimeout(() => void poll(), POLL_MS * 2);
      }
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [api, runningId]);

  const backUpNow = async () => {
    setStarting(true);
    setProblem('');
    setOutcome('');
    try {
      setRunning(await startBackup(api));
    } catch (error) {
      setProblem(errorMessage(error, 'Could not start a backup'));
    } finally {
      setStarting(false);
    }
  };

  const current = running ?? listed;
  const busy = starting || Boolean(current);
  return (
    <section className="card" aria-labelledby="backups-heading">
      <h2 id="backups-heading">Backups</h2>
      <p>
        The whole blog (every table and every media file) into the backup target, so it can be restored on a
        new machine with <code>npm run restore</code>. Older backups go as BACKUP_KEEP says.
      </p>
      {state.status === 'ready' && !state.data.encrypted && (
        <p className="backups-notice" role="note">
          Backups are not encrypted: set BACKUP_PASSPHRASE
        </p>
      )}
      {state.status === 'ready' && (
        <p>
          {state.data.next
            ? `Next scheduled backup: ${formatDateTime(state.data.next)}`
            : 'No scheduled backups: set BACKUP_SCHEDULE to back up automatically.'}
        </p>
      )}
      <button type="button" className="button" disabled={busy} onClick={() => void backUpNow()}>
        {busy ? 'Backing up...' : 'Back up now'}
      </button>
      <div className="backups-progress">
        {current && (
          <progress max={100} value={progressPercent(current.progress)} aria-label="Backup progress" />
        )}
        <p role="status">{current ? progressText(current.progress) : outcome}</p>
      </div>
      <ErrorLine error={problem} />
      {state.status === 'loading' && <p role="status">Loading backups...</p>}
      {state.status === 'error' && (
        <LoadFailed
          error={errorMessage(state.error, 'Could not load the backups')}
          onRetry={() => setVersion((v) => v + 1)}
        />
      )}
      {state.status === 'ready' &&
        (state.data.items.length === 0 ? (
          <p className="empty">No backup yet</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">The last backups, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Size</th>
                  <th scope="col">Target</th>
                  <th scope="col">Took</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {state.data.items.map((run) => (
                  <tr key={run.id}>
                    <td>
                      {formatDateTime(run.startedAt)}
                      {run.trigger === 'schedule' ? ' (scheduled)' : ''}
                    </td>
                    <td>{formatBytes(run.bytes)}</td>
                    <td className="backups-target">{run.target}</td>
                    <td>{formatDuration(run.startedAt, run.finishedAt)}</td>
                    <td>
                      {run.state === 'done' && <span className="backups-ok">OK</span>}
                      {run.state === 'running' && 'Running'}
                      {run.state === 'failed' && (
                        <span className="backups-failed">Failed: {run.error ?? 'no reason given'}</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}
