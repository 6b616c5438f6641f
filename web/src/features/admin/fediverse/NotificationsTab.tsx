import type { NotificationKind, NotificationView } from '@blog/contracts/fediverse-owner';
import { useRef, useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { formatDateTime } from '../../../lib/format';
import { useRefreshBadges } from '../nav/badges';
import { useNotify } from '../ui/Notifications';
import { CursorPages, useBeforeParam } from './cursorPages';
import { listNotifications, markNotificationsRead } from './ownerApi';
import { AccountLine } from './ReaderTab';
import './owner.css';

const WHAT: Record<NotificationKind, string> = {
  follow: 'followed the blog',
  mention: 'mentioned the blog',
  reply: 'replied',
  like: 'liked a post',
  boost: 'boosted a post',
  quote: 'quoted a post',
};

/**
 * Follows, mentions, replies, likes, boosts and quotes, newest first; the unread ones marked
 * until the owner marks them read. An older page's cursor is in the URL (`?before=`).
 */
export function NotificationsTab() {
  const api = useApi();
  const notify = useNotify();
  const refreshBadges = useRefreshBadges();
  const [before, setBefore] = useBeforeParam();
  const [reload, setReload] = useState(0);
  const [marking, setMarking] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const page = useAsync((signal) => listNotifications(api, before, signal), [api, before, reload]);
  const go = (next: string | null) => {
    setBefore(next);
    headingRef.current?.focus();
  };
  const markAll = async () => {
    setMarking(true);
    try {
      await markNotificationsRead(api);
      setReload((n) => n + 1);
      refreshBadges();
    } catch (error) {
      notify('error', errorMessage(error, 'The notifications could not be marked read.'));
    } finally {
      setMarking(false);
    }
  };
  const unread = page.status === 'ready' ? page.data.unread : 0;

  return (
    <section className="card fediverse-notifications" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading" ref={headingRef} tabIndex={-1}>
        Notifications
      </h2>
      <div className="notifications-bar">
        <p className="fediverse-hint" role="status">
          {page.status === 'ready' && (unread === 0 ? 'Nothing unread.' : `${unread} unread.`)}
        </p>
        {unread > 0 && (
          <button
            type="button"
            className="button button-secondary"
            disabled={marking}
            onClick={() => void markAll()}
          >
            {marking ? 'Marking...' : 'Mark all as read'}
          </button>
        )}
      </div>
      {page.status === 'loading' && <p role="status">Loading the notifications...</p>}
      {page.status === 'error' && (
        <LoadFailed
          error={errorMessage(page.error, 'The notifications could not be loaded.')}
          onRetry={() => setReload((n) => n + 1)}
        />
      )}
      {page.status === 'ready' &&
        (page.data.items.length === 0 ? (
          <p className="empty">
            {before
              ? 'No older notifications.'
              : 'No notifications yet: follows, replies, mentions, likes and boosts show here.'}
          </p>
        ) : (
          <ol className="fediverse-list notifications-list" aria-label="Notifications">
            {page.data.items.map((item) => (
              <NotificationRow key={item.id} item={item} />
            ))}
          </ol>
        ))}
      <CursorPages
        label="Notification pages"
        older="Older notifications"
        before={before}
        next={page.status === 'ready' ? page.data.next : null}
        onGo={go}
      />
    </section>
  );
}

function NotificationRow({ item }: { item: NotificationView }) {
  return (
    <li className={item.read ? 'fediverse-row' : 'fediverse-row notification-unread'}>
      <div>
        <p className="notification-what">
          {!item.read && <span className="notification-new">New</span>}
          <AccountLine account={item.actor} /> <span>{WHAT[item.kind]}</span>
        </p>
        {item.excerpt && <p className="notification-excerpt">{item.excerpt}</p>}
        <p className="fediverse-row-meta">
          <time dateTime={item.createdAt}>{formatDateTime(item.createdAt)}</time>
          {item.object && (
            <>
              {' · '}
              <a href={item.object} rel="nofollow noopener noreferrer">
                {item.kind === 'reply' || item.kind === 'mention' ? 'Open it' : 'The post'}
              </a>
            </>
          )}
        </p>
      </div>
    </li>
  );
}
