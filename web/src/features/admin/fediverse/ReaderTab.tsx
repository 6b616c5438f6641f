import type { ReaderItem, RemoteAccountView } from '@blog/contracts/fediverse-owner';
import { useId, useRef, useState, type FormEvent } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine, LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { formatDateTime } from '../../../lib/format';
import { useNotify } from '../ui/Notifications';
import { CursorPages, useBeforeParam } from './cursorPages';
import { react, readerPage, replyTo } from './ownerApi';
import './owner.css';

/**
 * The Reader: what the accounts the blog follows post and boost, newest first, a page at a
 * time. A post behind a content warning stays folded until opened; pictures and avatars are
 * the blog's own copies. Like, boost and reply from each post.
 */
export function ReaderTab() {
  const api = useApi();
  const [before, setBefore] = useBeforeParam();
  const [reload, setReload] = useState(0);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const page = useAsync((signal) => readerPage(api, before, signal), [api, before, reload]);
  const go = (next: string | null) => {
    setBefore(next);
    headingRef.current?.focus();
  };

  return (
    <section className="card fediverse-reader" aria-labelledby="reader-heading">
      <h2 id="reader-heading" ref={headingRef} tabIndex={-1}>
        Reader
      </h2>
      <p className="fediverse-hint">
        Posts and boosts of the accounts the blog follows, newest first. Follow accounts in Following.
      </p>
      {page.status === 'loading' && <p role="status">Loading the Reader...</p>}
      {page.status === 'error' && (
        <LoadFailed
          error={errorMessage(page.error, 'The Reader could not be loaded.')}
          onRetry={() => setReload((n) => n + 1)}
        />
      )}
      {page.status === 'ready' &&
        (page.data.items.length === 0 ? (
          <p className="empty">
            {before
              ? 'No older posts.'
              : 'Nothing to read yet: posts of the accounts the blog follows show here.'}
          </p>
        ) : (
          <ol className="reader-list" aria-label="Posts">
            {page.data.items.map((item) => (
              <li key={item.id}>
                <ReaderEntry item={item} onChanged={() => setReload((n) => n + 1)} />
              </li>
            ))}
          </ol>
        ))}
      <CursorPages
        label="Reader pages"
        older="Older posts"
        before={before}
        next={page.status === 'ready' ? page.data.next : null}
        onGo={go}
      />
    </section>
  );
}

export function AccountLine({ account }: { account: RemoteAccountView }) {
  return (
    <span className="reader-account">
      {account.avatar ? (
        <img className="reader-avatar" src={account.avatar} alt="" width={40} height={40} loading="lazy" />
      ) : (
        <span className="reader-avatar reader-avatar-none" aria-hidden="true" />
      )}
      <span className="reader-account-names">
        <span className="reader-account-name">{account.name || account.handle}</span>{' '}
        {account.url ? (
          <a className="reader-account-handle" href={account.url} rel="nofollow noopener noreferrer">
            {account.handle}
          </a>
        ) : (
          <span className="reader-account-handle">{account.handle}</span>
        )}
      </span>
    </span>
  );
}

function ReaderEntry({ item, onChanged }: { item: ReaderItem; onChanged(): void }) {
  const api = useApi();
  const notify = useNotify();
  const [busy, setBusy] = useState<string | null>(null);
  const [replying, setReplying] = useState(false);
  const who = item.author.name || item.author.handle;
  const toggle = async (kind: 'like' | 'boost', active: boolean) => {
    setBusy(kind);
    try {
      await react(api, kind, item.object, active);
      notify(
        'success',
        `${active ? (kind === 'like' ? 'Liked' : 'Boosted') : kind === 'like' ? 'Like taken back' : 'Boost taken back'}: ${who}'s post.`,
      );
      onChanged();
    } catch (error) {
      notify('error', errorMessage(error, `The ${kind} could not be sent.`));
    } finally {
      setBusy(null);
    }
  };
  const body = (
    <>
      {item.name && <p className="reader-title">{item.name}</p>}
      <div className="reader-content" dangerouslySetInnerHTML={{ __html: item.content }} />
      {item.attachments.length > 0 && (
        <div className="reader-pictures">
          {item.attachments.map((picture) => (
            <img key={picture.url} src={picture.url} alt={picture.alt} loading="lazy" />
          ))}
        </div>
      )}
    </>
  );
  return (
    <article className="reader-entry" aria-label={`${who}, ${formatDateTime(item.published)}`}>
      {item.boostedBy && (
        <p className="reader-boosted">Boosted by {item.boostedBy.name || item.boostedBy.handle}</p>
      )}
      <header className="reader-entry-head">
        <AccountLine account={item.author} />
        <a className="reader-time" href={item.url ?? item.object} rel="nofollow noopener noreferrer">
          <time dateTime={item.published}>{formatDateTime(item.published)}</time>
        </a>
      </header>
      {item.summary || item.sensitive ? (
        <details className="reader-warning">
          <summary>
            <span className="reader-warning-label">Content warning:</span> {item.summary ?? 'Sensitive'}
          </summary>
          {body}
        </details>
      ) : (
        body
      )}
      <div className="admin-actions reader-actions">
        <button
          type="button"
          className="button button-small button-secondary"
          aria-pressed={item.liked}
          disabled={busy !== null}
          onClick={() => void toggle('like', !item.liked)}
        >
          {busy === 'like' ? 'Sending...' : item.liked ? 'Liked' : 'Like'}
        </button>
        <button
          type="button"
          className="button button-small button-secondary"
          aria-pressed={item.boosted}
          disabled={busy !== null}
          onClick={() => void toggle('boost', !item.boosted)}
        >
          {busy === 'boost' ? 'Sending...' : item.boosted ? 'Boosted' : 'Boost'}
        </button>
        <button
          type="button"
          className="button button-small button-secondary"
          aria-expanded={replying}
          onClick={() => setReplying((open) => !open)}
        >
          Reply
        </button>
      </div>
      {replying && <ReplyForm item={item} onDone={() => setReplying(false)} />}
    </article>
  );
}

/** The owner's reply: a note of the blog's, sent to the author and the blog's followers. */
function ReplyForm({ item, onDone }: { item: ReaderItem; onDone(): void }) {
  const api = useApi();
  const notify = useNotify();
  const id = useId();
  const [text, setText] = useState(`${item.author.handle} `);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return setError('Write the reply first.');
    setSending(true);
    setError(null);
    try {
      await replyTo(api, item.object, text);
      notify('success', `Reply sent to ${item.author.handle}.`);
      onDone();
    } catch (failure) {
      setError(errorMessage(failure, 'The reply could not be sent.'));
    } finally {
      setSending(false);
    }
  };
  return (
    <form className="reader-reply" onSubmit={(event) => void submit(event)}>
      <label htmlFor={`${id}-text`}>Reply to {item.author.handle}</label>
      <textarea
        id={`${id}-text`}
        rows={3}
        maxLength={5000}
        value={text}
        autoFocus
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-error`}
        onChange={(event) => setText(event.target.value)}
      />
      <ErrorLine id={`${id}-error`} error={error} />
      <div className="admin-actions">
        <button type="submit" className="button button-small" disabled={sending}>
          {sending ? 'Sending...' : 'Send reply'}
        </button>
        <button type="button" className="button button-small button-secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
