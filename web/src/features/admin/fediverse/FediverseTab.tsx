import { fediverseAddress } from '@blog/contracts/site';
import type { BlockView, DeliveryFailureView, FollowerStatus, FollowerView } from '@blog/contracts/social';
import { useRef, useState, type ReactNode } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { Pagination } from '../../../components/Pagination';
import { LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { usePageParam } from '../../../hooks/usePageParam';
import { formatDateTime } from '../../../lib/format';
import { useSite } from '../../../site/SiteContext';
import { CopyableHandle } from '../../../components/FediverseHandle';
import { useNotify } from '../ui/Notifications';
import {
  approveFollower,
  dismissDeliveryFailure,
  listBlocks,
  listDeliveryFailures,
  listFollowers,
  removeBlock,
  removeFollower,
} from './fediverseApi';
import './fediverse-tab.css';
import { blockLabel, countOf, deliveryProblemText } from './fediverseTab';

/** Follow requests shown at once (the owner approves them one by one). */
const PENDING_SHOWN = 100;

type Busy = { key: string; label: string } | null;

/**
 * The Fediverse tab (issue 30 §3): the blog's handle to copy, its followers (the page in the
 * URL) with the counts, follow requests waiting for approval, the blocked accounts and
 * servers, and the servers deliveries were given up for (to dismiss). Removing a follower asks first; every action reloads the lists from the server.
 */
export function FediverseTab() {
  const api = useApi();
  const notify = useNotify();
  const site = useSite();
  const address = fediverseAddress(site);
  const [page, setPage] = usePageParam();
  const [reload, setReload] = useState(0);
  const [busy, setBusy] = useState<Busy>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const followers = useAsync(
    (signal) => listFollowers(api, { status: 'accepted', page }, signal),
    [api, page, reload],
  );
  const pending = useAsync(
    (signal) => listFollowers(api, { status: 'pending', page: 1, pageSize: PENDING_SHOWN }, signal),
    [api, reload],
  );
  const blocks = useAsync((signal) => listBlocks(api, signal), [api, reload]);
  const deliveries = useAsync((signal) => listDeliveryFailures(api, signal), [api, reload]);
  const counts = followers.status === 'ready' ? followers.data.counts : null;

  const run = async (
    key: string,
    label: string,
    work: () => Promise<unknown>,
    done: string,
    failed: string,
  ) => {
    if (busy) return;
    setBusy({ key, label });
    try {
      await work();
      notify('success', done);
      setReload((n) => n + 1);
      headingRef.current?.focus();
    } catch (error) {
      notify('error', errorMessage(error, failed));
    } finally {
      setBusy(null);
    }
  };
  const remove = (follower: FollowerView) => {
    if (!window.confirm(`Remove ${follower.handle} from the followers? They no longer get new posts.`))
      return;
    void run(
      `remove-${follower.id}`,
      'Removing...',
      () => removeFollower(api, follower.id),
      `${follower.handle} removed.`,
      'The follower could not be removed.',
    );
  };
  const approve = (follower: FollowerView) =>
    void run(
      `approve-${follower.id}`,
      'Approving...',
      () => approveFollower(api, follower.id),
      `${follower.handle} now follows the blog.`,
      'The follower could not be approved.',
    );
  const unblock = (block: BlockView) => {
    const { target } = blockLabel(block);
    void run(
      `unblock-${block.id}`,
      'Unblocking...',
      () => removeBlock(api, block.id),
      `${target} unblocked.`,
      'The block could not be removed.',
    );
  };
  const dismiss = (failure: DeliveryFailureView) =>
    void run(
      `dismiss-${failure.host}`,
      'Dismissing...',
      () => dismissDeliveryFailure(api, failure.host),
      `${failure.host} dismissed.`,
      'The delivery problem could not be dismissed.',
    );
  const busyLabel = (key: string, label: string) => (busy?.key === key ? busy.label : label);

  return (
    <section className="card admin-fediverse" aria-labelledby="fediverse-tab-heading">
      <h2 id="fediverse-tab-heading" ref={headingRef} tabIndex={-1}>
        Fediverse
      </h2>
      <p className="fediverse-address">
        {address ? (
          <>
            People on Mastodon and other fediverse servers follow the blog as{' '}
            <CopyableHandle address={address} label="the blog's fediverse handle" />. The handle is set in the
            Site tab.
          </>
        ) : (
          'The blog has no public address yet: set SITE_URL so other servers can reach it.'
        )}
      </p>
      {counts && (
        <ul className="fediverse-counts" aria-label="Counts">
          <li>
            <strong>{counts.accepted}</strong> {counts.accepted === 1 ? 'follower' : 'followers'}
          </li>
          <li>
            <strong>{counts.pending}</strong> waiting for approval
          </li>
          <li>
            <strong>{counts.likes}</strong> {counts.likes === 1 ? 'like' : 'likes'}
          </li>
          <li>
            <strong>{counts.announces}</strong> {counts.announces === 1 ? 'boost' : 'boosts'}
          </li>
        </ul>
      )}

      <FollowerList
        id="fediverse-pending"
        title="Waiting for approval"
        status="pending"
        state={pending}
        empty="No follow requests wait for approval."
        onRetry={() => setReload((n) => n + 1)}
        renderActions={(follower) => (
          <>
            <button
              type="button"
              className="button button-small"
              disabled={busy !== null}
              onClick={() => approve(follower)}
            >
              {busyLabel(`approve-${follower.id}`, 'Approve')}
              <span className="visually-hidden"> {follower.handle}</span>
            </button>
            <button
              type="button"
              className="button button-small button-danger"
              disabled={busy !== null}
              onClick={() => remove(follower)}
            >
              {busyLabel(`remove-${follower.id}`, 'Refuse')}
              <span className="visually-hidden"> {follower.handle}</span>
            </button>
          </>
        )}
      />

      <FollowerList
        id="fediverse-followers"
        title="Followers"
        status="accepted"
        state={followers}
        empty="No one follows the blog yet."
        onRetry={() => setReload((n) => n + 1)}
        pagination={(data) => (
          <Pagination
            page={page}
            pageSize={data.pageSize}
            total={data.total}
            onPageChange={setPage}
            label="Followers pages"
          />
        )}
        renderActions={(follower) => (
          <button
            type="button"
            className="button button-small button-danger"
            disabled={busy !== null}
            onClick={() => remove(follower)}
          >
            {busyLabel(`remove-${follower.id}`, 'Remove')}
            <span className="visually-hidden"> {follower.handle}</span>
          </button>
        )}
      />

      <section className="fediverse-section" aria-labelledby="fediverse-blocks-heading">
        <h3 id="fediverse-blocks-heading">Blocked{blocks.status === 'ready' && ` (${blocks.data.total})`}</h3>
        <p className="fediverse-hint">
          Block an account or a whole server from a comment in the Comments tab.
        </p>
        {blocks.status === 'loading' && <p role="status">Loading the blocks...</p>}
        {blocks.status === 'error' && (
          <LoadFailed
            error={errorMessage(blocks.error, 'The blocks could not be loaded.')}
            onRetry={() => setReload((n) => n + 1)}
          />
        )}
        {blocks.status === 'ready' &&
          (blocks.data.items.length === 0 ? (
            <p className="empty">No accounts or servers are blocked.</p>
          ) : (
            <ul className="fediverse-list">
              {blocks.data.items.map((block) => {
                const { kind, target } = blockLabel(block);
                return (
                  <li key={block.id} className="fediverse-row">
                    <div>
                      <p className="fediverse-row-title">{target}</p>
                      <p className="fediverse-row-meta">
                        {kind} · blocked{' '}
                        <time dateTime={block.createdAt}>{formatDateTime(block.createdAt)}</time>
                      </p>
                    </div>
                    <div className="admin-actions">
                      <button
                        type="button"
                        className="button button-small button-secondary"
                        disabled={busy !== null}
                        onClick={() => unblock(block)}
                      >
                        {busyLabel(`unblock-${block.id}`, 'Unblock')}
                        <span className="visually-hidden"> {target}</span>
                      </button>
                    </div>
                  </li>
                );
              })}
            </ul>
          ))}
      </section>

      <section className="fediverse-section" aria-labelledby="fediverse-deliveries-heading">
        <h3 id="fediverse-deliveries-heading">
          Delivery problems{deliveries.status === 'ready' && ` (${deliveries.data.items.length})`}
        </h3>
        <p className="fediverse-hint">
          Servers that stopped taking the blog&apos;s posts. A server is taken off the list when it takes a
          post again.
        </p>
        {deliveries.status === 'loading' && <p role="status">Loading the delivery problems...</p>}
        {deliveries.status === 'error' && (
          <LoadFailed
            error={errorMessage(deliveries.error, 'The delivery problems could not be loaded.')}
            onRetry={() => setReload((n) => n + 1)}
          />
        )}
        {deliveries.status === 'ready' &&
          (deliveries.data.items.length === 0 ? (
            <p className="empty">Every follower&apos;s server is taking the posts.</p>
          ) : (
            <ul className="fediverse-list">
              {deliveries.data.items.map((failure) => (
                <li key={failure.host} className="fediverse-row">
                  <div>
                    <p className="fediverse-row-title">{failure.host}</p>
                    <p>{deliveryProblemText(failure)}</p>
                    <p className="fediverse-row-meta">
                      {countOf(failure.count, 'post')} missed · last given up{' '}
                      <time dateTime={failure.lastFailedAt}>{formatDateTime(failure.lastFailedAt)}</time>
                    </p>
                  </div>
                  <div className="admin-actions">
                    <button
                      type="button"
                      className="button button-small button-secondary"
                      disabled={busy !== null}
                      onClick={() => dismiss(failure)}
                    >
                      {busyLabel(`dismiss-${failure.host}`, 'Dismiss')}
                      <span className="visually-hidden"> {failure.host}</span>
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          ))}
      </section>
    </section>
  );
}

interface FollowerListProps {
  id: string;
  title: string;
  status: FollowerStatus;
  state: ReturnType<typeof useAsync<Awaited<ReturnType<typeof listFollowers>>>>;
  empty: string;
  onRetry(): void;
  renderActions(follower: FollowerView): ReactNode;
  pagination?(data: Awaited<ReturnType<typeof listFollowers>>): ReactNode;
}

function FollowerList({
  id,
  title,
  status,
  state,
  empty,
  onRetry,
  renderActions,
  pagination,
}: FollowerListProps) {
  return (
    <section className="fediverse-section" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>
        {title}
        {state.status === 'ready' && ` (${state.data.counts[status]})`}
      </h3>
      {state.status === 'loading' && <p role="status">Loading {title.toLowerCase()}...</p>}
      {state.status === 'error' && (
        <LoadFailed error={errorMessage(state.error, `${title} could not be loaded.`)} onRetry={onRetry} />
      )}
      {state.status === 'ready' &&
        (state.data.items.length === 0 ? (
          <p className="empty">{empty}</p>
        ) : (
          <>
            <ul className="fediverse-list">
              {state.data.items.map((follower) => (
                <li key={follower.id} className="fediverse-row">
                  <div>
                    <p className="fediverse-row-title">
                      {follower.url ? (
                        <a href={follower.url} rel="nofollow noopener noreferrer">
                          {follower.handle}
                        </a>
                      ) : (
                        follower.handle
                      )}
                      {follower.name && <span className="fediverse-row-name"> {follower.name}</span>}
                    </p>
                    <p className="fediverse-row-meta">
                      {follower.server} · {status === 'pending' ? 'asked' : 'since'}{' '}
                      <time dateTime={follower.since}>{formatDateTime(follower.since)}</time>
                    </p>
                  </div>
                  <div className="admin-actions">{renderActions(follower)}</div>
                </li>
              ))}
            </ul>
            {pagination?.(state.data)}
          </>
        ))}
    </section>
  );
}
