import type { NewsletterStatus } from '@blog/contracts/newsletter';
import type { PostView } from '@blog/contracts/posts';
import { useId, useState } from 'react';
import { ApiError } from '../../../api/client';
import { useApi } from '../../../api/ApiContext';
import { useAsync } from '../../../hooks/useAsync';
import { formatDateTime } from '../../../lib/format';
import { emailProgress, emailStatusText, emailTaken } from './emailStatus';
import { getAudience, sendTestEmail } from './newsletterApi';
import { useEmailStatus } from './useEmailStatus';
import './newsletter.css';

interface PostEmailOptionsProps {
  /** The post being edited; none for a new post. */
  post?: PostView;
  checked: boolean;
  onChange(checked: boolean): void;
}

const subscribers = (n: number) => `${n} ${n === 1 ? 'subscriber' : 'subscribers'}`;

/**
 * The post form's E-mail options (docs/product.md#every-post-by-e-mail): "Send by e-mail to N
 * subscribers", how the post's send stands (a progress bar while it is sent, asked again every
 * few seconds), and a test to the owner.
 */
export function PostEmailOptions({ post, checked, onChange }: PostEmailOptionsProps) {
  const api = useApi();
  const id = useId();
  const audience = useAsync((signal) => getAudience(api, signal), [api]);
  const [testRun, setTestRun] = useState(0);
  const status = useEmailStatus(api, post?.id ?? null, true, testRun);
  const [test, setTest] = useState<
    { state: 'idle' } | { state: 'sending' } | { state: 'done'; message: string; failed: boolean }
  >({ state: 'idle' });
  const current = status.status === 'ready' ? status.data : null;
  const taken = emailTaken(current);

  const label =
    audience.status === 'ready'
      ? `Send by e-mail to ${subscribers(audience.data.eachPost)}`
      : 'Send by e-mail to subscribers';
  const hintIds = [`${id}-hint`, taken ? `${id}-taken` : null, `${id}-audience`].filter(Boolean).join(' ');

  const sendTest = async () => {
    if (!post) return;
    setTest({ state: 'sending' });
    try {
      const result = await sendTestEmail(api, post.id);
      setTest({ state: 'done', message: `Test sent to ${result.sentTo}.`, failed: false });
    } catch (error) {
      const message =
        error instanceof ApiError && error.status === 404
          ? 'This post no longer exists.'
          : error instanceof ApiError && error.serverMessage
            ? error.serverMessage
            : 'The test could not be sent. Please try again.';
      setTest({ state: 'done', message, failed: true });
    }
    setTestRun((n) => n + 1);
  };

  return (
    <fieldset className="admin-post-email">
      <legend>E-mail</legend>
      <label className="admin-check">
        <input
          type="checkbox"
          checked={taken ? true : checked}
          disabled={taken}
          aria-describedby={hintIds}
          onChange={(event) => onChange(event.target.checked)}
        />
        <span>{label}</span>
      </label>
      <p id={`${id}-audience`} className="admin-hint">
        {audience.status === 'loading' && 'Counting subscribers…'}
        {audience.status === 'error' && 'The number of subscribers could not be loaded.'}
        {audience.status === 'ready' &&
          audience.data.eachPost === 0 &&
          !taken &&
          'No subscriber has chosen every post yet: nobody would get it.'}
      </p>
      <p id={`${id}-hint`} className="admin-hint">
        Sent once, when the post is published (a scheduled post at its time). Drafts are never sent, and
        editing the post later does not send it again.
      </p>
      {taken && (
        <p id={`${id}-taken`} className="admin-hint">
          This post has been e-mailed already: a post is sent once, so the box cannot change.
        </p>
      )}
      {post && (
        <div className="admin-email-status">
          {status.status === 'loading' && <p className="admin-hint">Loading the e-mail status…</p>}
          {status.status === 'error' && (
            <p className="admin-hint admin-email-error">The e-mail status could not be loaded.</p>
          )}
          {current && <EmailProgress id={`${id}-progress`} status={current} />}
          <div className="admin-actions">
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => void sendTest()}
              disabled={test.state === 'sending'}
            >
              {test.state === 'sending' ? 'Sending test…' : 'Send a test to me'}
            </button>
            <span
              role="status"
              className={test.state === 'done' && test.failed ? 'admin-email-error' : undefined}
            >
              {test.state === 'done' ? test.message : ''}
            </span>
          </div>
        </div>
      )}
    </fieldset>
  );
}

/** The status line, and a progress bar while the post is being sent. */
export function EmailProgress({ id, status }: { id: string; status: NewsletterStatus }) {
  const { done, total } = emailProgress(status);
  return (
    <>
      <p id={id} className="admin-hint">
        {emailStatusText(status, formatDateTime)}
      </p>
      {status.status === 'sending' && (
        <progress max={Math.max(total, 1)} value={done} aria-labelledby={id}>
          {done} of {total}
        </progress>
      )}
    </>
  );
}
