import type { FollowingStatus } from '@blog/contracts/fediverse-owner';
import { useId, useRef, useState, type FormEvent } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine, LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { formatDateTime } from '../../../lib/format';
import { useNotify } from '../ui/Notifications';
import { follow, listFollowing, unfollow } from './ownerApi';
import { AccountLine } from './ReaderTab';
import { RowAction, useRowActions } from './RowAction';
import './fediverse-tab.css';
import './owner.css';

const STATUS_TEXT: Record<FollowingStatus, string> = {
  pending: 'waiting for their answer',
  accepted: 'following',
  rejected: 'refused the follow',
};

/**
 * The accounts the blog follows: follow one by its handle (`@user@server`) or address, see
 * whether it answered, and unfollow (which tells its server).
 */
export function FollowingTab() {
  const api = useApi();
  const notify = useNotify();
  const id = useId();
  const [reload, setReload] = useState(0);
  const [account, setAccount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const list = useAsync((signal) => listFollowing(api, signal), [api, reload]);
  const actions = useRowActions(() => {
    setReload((n) => n + 1);
    headingRef.current?.focus();
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = account.trim();
    if (!value) return setError('Write an account such as @someone@mastodon.social.');
    setSending(true);
    setError(null);
    try {
      const followed = await follow(api, value);
      notify(
        'success',
        followed.status === 'accepted'
          ? `The blog follows ${followed.handle}.`
          : `Follow request sent to ${followed.handle}.`,
      );
      setAccount('');
      setReload((n) => n + 1);
    } catch (failure) {
      setError(errorMessage(failure, 'The account could not be followed.'));
    } finally {
      setSending(false);
    }
  };

  return (
    <section className="card fediverse-following" aria-labelledby="following-heading">
      <h2 id="following-heading" ref={headingRef} tabIndex={-1}>
        Following
      </h2>
      <form className="following-form" onSubmit={(event) => void submit(event)} noValidate>
        <label htmlFor={`${id}-account`}>Follow an account</label>
        <div className="following-form-row">
          <input
            id={`${id}-account`}
            value={account}
            placeholder="@someone@mastodon.social"
            autoCapitalize="off"
            autoComplete="off"
            spellCheck={false}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-hint ${id}-error`}
            onChange={(event) => setAccount(event.target.value)}
          />
          <button type="submit" className="button" disabled={sending}>
            {sending ? 'Looking it up...' : 'Follow'}
          </button>
        </div>
        <p id={`${id}-hint`} className="fediverse-hint">
          A handle such as @someone@mastodon.social, or the address of their profile.
        </p>
        <ErrorLine id={`${id}-error`} error={error} />
      </form>

      {list.status === 'loading' && <p role="status">Loading the accounts the blog follows...</p>}
      {list.status === 'error' && (
        <LoadFailed
          error={errorMessage(list.error, 'The accounts the blog follows could not be loaded.')}
          onRetry={() => setReload((n) => n + 1)}
        />
      )}
      {list.status === 'ready' &&
        (list.data.items.length === 0 ? (
          <p className="empty">The blog follows no one yet.</p>
        ) : (
          <ul className="fediverse-list" aria-label={`Accounts the blog follows (${list.data.total})`}>
            {list.data.items.map((row) => (
              <li key={row.id} className="fediverse-row">
                <div>
                  <AccountLine account={row} />
                  <p className="fediverse-row-meta">
                    {STATUS_TEXT[row.status]} · since{' '}
                    <time dateTime={row.since}>{formatDateTime(row.since)}</time>
                  </p>
                </div>
                <div className="admin-actions">
                  <RowAction
                    actions={actions}
                    label={row.status === 'accepted' ? 'Unfollow' : 'Cancel'}
                    target={row.handle}
                    tone="danger"
                    actionKey={`unfollow-${row.id}`}
                    busyLabel="Unfollowing..."
                    confirm={`Stop following ${row.handle}?`}
                    work={() => unfollow(api, row.id)}
                    done={`The blog no longer follows ${row.handle}.`}
                    failed="The account could not be unfollowed."
                  />
                </div>
              </li>
            ))}
          </ul>
        ))}
    </section>
  );
}
