import type { PostView } from '@blog/contracts/posts';
import { useApi } from '../../../api/ApiContext';
import { emailProgress } from './emailStatus';
import { useEmailStatus } from './useEmailStatus';
import './newsletter.css';

/**
 * A posts-list row's e-mail state, for a post to be sent by e-mail: scheduled, sending (with
 * its progress, asked again every few seconds), sent or stopped. Nothing for other posts.
 */
export function EmailBadge({ post }: { post: PostView }) {
  const api = useApi();
  const state = useEmailStatus(api, post.id, post.sendByEmail === true);
  if (state.status !== 'ready') return null;
  const status = state.data;
  const { done, total } = emailProgress(status);
  switch (status.status) {
    case 'none':
      return null;
    case 'scheduled':
      return <span className="admin-status">E-mail scheduled</span>;
    case 'sending': {
      const label = `Sending by e-mail: ${done} of ${total}`;
      return (
        <span className="admin-status admin-email-badge">
          {label}
          <progress max={Math.max(total, 1)} value={done} aria-label={`${label} subscribers`} />
        </span>
      );
    }
    case 'sent':
      return (
        <span className="admin-status">
          E-mailed to {status.sent} {status.sent === 1 ? 'subscriber' : 'subscribers'}
        </span>
      );
    case 'stopped':
      return <span className="admin-status admin-status-warning">E-mail stopped</span>;
  }
}
