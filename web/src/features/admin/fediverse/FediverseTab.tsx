import { fediverseAddress } from '@blog/contracts/site';
import type { FollowerStatus, FollowerView } from '@blog/contracts/social';
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
import {
  approveFollower,
  dismissDeliveryFailure,
  listBlocks,
  listDeliveryFailures,
  listFollowers,
  removeBlock,
  removeFollower,
} from './fediverseApi';
import { follow, listFollowing } from './ownerApi';
import './fediverse-tab.css';
import { blockLabel, countOf, deliveryProblemText } from './fediverseTab';
import { RowAction, useRowActions } from './RowAction';
import { BlocklistTransfer } from './BlocklistTransfer';
import { MoveFollowers } from './MoveFollowers';
import { fediverseOf } from '@blog/contracts/site-settings';

/** Follow requests shown at once (the owner approves them one by one). */
const PENDING_SHOWN = 100;

/**
 * The Fediverse tab: the blog's handle to copy, its followers (the page in the
 * URL) with the counts, follow requests waiting for approval, the blocked accounts and
 * servers, and the servers deliveries were given up for (to dismiss); the followers can be moved
 * to another account of the owner's. Removing a follower asks first; every action reloads the lists from the server.
 */
export function FediverseTab() {
  const api = useApi();
  const site = useSite();
  const address = fediverseAddress(site);
  const [page, setPage] = usePageParam();
  const [reload, setReload] = useState(0);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const actions = useRowActions(() => {
    setReload((n) => n + 1);
    headingRef.current?.focus();
  });
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
  const following = useAsync((signal) => listFollowing(api, signal), [api, reload]);
  // Followed already (or asked): no Follow back button. Handles are `@user@server` on both lists.
  const followed = new Set(following.status === 'ready' ? following.data.items.map((f) => f.handle) : []);
  const counts = followers.status === 'ready' ? followers.data.counts : null;

  // Refuse (a request) and Remove (a follower) are the same call.
  const removal = (follower: FollowerView) => ({
    actions,
    target: follower.handle,
    tone: 'danger' as const,
    actionKey: `remove-${follower.id}`,
    busyLabel: 'Removing...',
    confirm: `Remove ${follower.handle} from the followers? They no longer get new posts.`,
    work: () => removeFollower(api, follower.id),
    done: `${follower.handle} removed.`,
    failed: 'The follower could not be removed.',
  });

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
            <RowAction
              actions={actions}
              label="Approve"
              target={follower.handle}
              actionKey={`approve-${follower.id}`}
              busyLabel="Approving..."
              work={() => approveFollower(api, follower.id)}
              done={`${follower.handle} now follows the blog.`}
              failed="The follower could not be approved."
            />
            <RowAction label="Refuse" {...removal(follower)} />
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
          <>
            {following.status === 'ready' && !followed.has(follower.handle) && (
              <RowAction
                actions={actions}
                label="Follow back"
                target={follower.handle}
                tone="secondary"
                actionKey={`follow-back-${follower.id}`}
                busyLabel="Following..."
                work={() => follow(api, follower.handle)}
                done={`Follow request sent to ${follower.handle}.`}
                failed="The follower could not be followed back."
              />
            )}
            <RowAction label="Remove" {...removal(follower)} />
          </>
        )}
      />

      <MoveFollowers
        address={address}
        followers={counts ? counts.accepted : null}
        movedTo={fediverseOf(site).movedTo}
      />

      <section className="fediverse-section" aria-labelledby="fediverse-blocks-heading">
        <h3 id="fediverse-blocks-heading">Blocked{blocks.status === 'ready' && ` (${blocks.data.total})`}</h3>
        <p className="fediverse-hint">
          Block an account or a whole server from a comment in the Comments tab.
        </p>
        <BlocklistTransfer onImported={() => setReload((n) => n + 1)} />
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
                      <RowAction
                        actions={actions}
                        label="Unblock"
                        target={target}
                        tone="secondary"
                        actionKey={`unblock-${block.id}`}
                        busyLabel="Unblocking..."
                        work={() => removeBlock(api, block.id)}
                        done={`${target} unblocked.`}
                        failed="The block could not be removed."
                      />
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
                    <RowAction
                      actions={actions}
                      label="Dismiss"
                      target={failure.host}
                      tone="secondary"
                      actionKey={`dismiss-${failure.host}`}
                      busyLabel="Dismissing..."
                      work={() => dismissDeliveryFailure(api, failure.host)}
                      done={`${failure.host} dismissed.`}
                      failed="The delivery problem could not be dismissed."
                    />
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
