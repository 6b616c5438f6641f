import type { AdminCommentItem } from '@blog/contracts/comment-edits';
import { COMMENT_STATUSES, type AdminCommentsResult, type CommentStatus } from '@blog/contracts/comments';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import {
  getCommentSettings,
  listAdminComments,
  moderateComment,
  saveCommentSettings,
  type CommentAction,
} from '../../../api/comments';
import { Link } from '../../../components/Link';
import { Pagination } from '../../../components/Pagination';
import { LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { usePageParam } from '../../../hooks/usePageParam';
import { formatDateTime } from '../../../lib/format';
import { pageCount } from '../../../lib/pagination';
import { addBlock } from '../fediverse/fediverseApi';
import { blockDoneText, blockTargetsOf } from '../fediverse/fediverseTab';
import { useRefreshBadges } from '../nav/badges';
import { CommentReplyForm } from '../notes/CommentReplyForm';
import { useNotify } from '../ui/Notifications';
import { AutoApproveSwitch } from './AutoApproveSwitch';
import './comments.css';
import {
  EMPTY_TEXTS,
  STATUS_LABELS,
  actionTexts,
  actionsFor,
  afterAction,
  isChange,
  statusFromParams,
  withStatus,
} from './commentsTab';

type AdminComment = AdminCommentItem;
/** A block from a comment: its author's account, or their whole server. */
type BlockScope = 'account' | 'server';

/** Approve stands out; spam is a lesser move; delete is the one that cannot be undone. */
const ACTION_CLASSES: Record<CommentAction, string> = {
  approve: '',
  spam: 'button-secondary',
  delete: 'button-danger',
};

const AUTO_APPROVE_SAVED = {
  on: 'Saved: comments from known commenters now show at once.',
  off: 'Saved: new comments wait for your approval (but on posts whose own switch is on).',
};

/**
 * The Comments tab: pending, approved and spam comments with their counts, the
 * status and page in the URL; each row approved, marked as spam or deleted (after a confirm),
 * its buttons showing the work under way. A row leaves the list once the server has done it.
 */
export function CommentsTab() {
  const api = useApi();
  const notify = useNotify();
  // The navigation's count of comments waiting follows each action.
  const refreshBadges = useRefreshBadges();
  const [params, setParams] = useSearchParams();
  const status = statusFromParams(params);
  const [page, setPage] = usePageParam();
  const [reload, setReload] = useState(0);
  const list = useAsync(
    (signal) => listAdminComments(api, { status, page }, signal),
    [api, status, page, reload],
  );
  // The rows the actions changed, over the answer they started from.
  const [changed, setChanged] = useState<{ from: AdminCommentsResult; now: AdminCommentsResult } | null>(
    null,
  );
  const loaded = list.status === 'ready' ? list.data : null;
  const data = loaded && changed?.from === loaded ? changed.now : loaded;
  const [counts, setCounts] = useState<AdminCommentsResult['counts'] | null>(null);
  const [busy, setBusy] = useState<{ id: number; action: CommentAction | BlockScope } | null>(null);
  const tabRefs = useRef<Partial<Record<CommentStatus, HTMLButtonElement | null>>>({});
  const listRef = useRef<HTMLOListElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const focusAfter = useRef<number | null>(null);

  useEffect(() => {
    if (data) setCounts(data.counts);
  }, [data]);

  // The last row of a page went: the page after it moves up (or the new last page shows).
  useEffect(() => {
    if (!data || data.items.length > 0 || data.total === 0) return;
    const last = pageCount(data.total, data.pageSize);
    if (page > last) setPage(last);
    else if (data !== loaded) setReload((n) => n + 1);
  }, [data, loaded, page, setPage]);

  // Keyboard users stay in the list: the row that took the removed one's place gets the focus.
  useEffect(() => {
    const index = focusAfter.current;
    if (index === null) return;
    focusAfter.current = null;
    const rows = listRef.current?.querySelectorAll<HTMLElement>('.admin-comment');
    const row = rows && rows.length > 0 ? rows[Math.min(index, rows.length - 1)] : null;
    (row ?? headingRef.current)?.focus();
  }, [data]);

  const chooseStatus = (next: CommentStatus) => setParams((current) => withStatus(current, next));
  const onTabKey = (event: KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    // The arrow's own default would scroll the (scrolling) row back by a notch.
    event.preventDefault();
    const next = COMMENT_STATUSES[(index + step + COMMENT_STATUSES.length) % COMMENT_STATUSES.length]!;
    chooseStatus(next);
    tabRefs.current[next]?.focus();
  };

  const act = async (comment: AdminComment, action: CommentAction) => {
    if (!data || !loaded || busy) return;
    // Refusing a change deletes nothing readers see: no question.
    if (
      action === 'delete' &&
      !isChange(comment) &&
      !window.confirm(`Delete the comment by ${comment.author.name}? This cannot be undone.`)
    )
      return;
    const texts = actionTexts(action, comment);
    setBusy({ id: comment.id, action });
    try {
      await moderateComment(api, comment.id, action);
      focusAfter.current = data.items.findIndex((item) => item.id === comment.id);
      setChanged({ from: loaded, now: afterAction(data, comment.id, action) });
      notify('success', texts.done);
      refreshBadges();
    } catch (error) {
      notify('error', errorMessage(error, texts.failed));
    } finally {
      setBusy(null);
    }
  };

  // A block deletes every comment of that author (or server) on the server: the list loads again.
  const block = async (comment: AdminComment, scope: BlockScope) => {
    const { actor, domain } = blockTargetsOf(comment.author);
    const target = scope === 'account' ? actor : domain;
    if (!target || busy) return;
    const what =
      scope === 'account' ? `${comment.author.handle ?? comment.author.name}` : `The server ${target}`;
    const question =
      scope === 'account'
        ? `Block ${comment.author.handle ?? comment.author.name}? All their comments are deleted, they stop following the blog, and what they send later is dropped.`
        : `Block the whole server ${target}? All comments from its accounts are deleted, its accounts stop following the blog, and what they send later is dropped.`;
    if (!window.confirm(question)) return;
    setBusy({ id: comment.id, action: scope });
    try {
      const answer = await addBlock(api, scope === 'account' ? { actor: target } : { domain: target });
      notify('success', blockDoneText(what, answer));
      focusAfter.current = data?.items.findIndex((item) => item.id === comment.id) ?? null;
      setChanged(null);
      setReload((n) => n + 1);
      refreshBadges();
    } catch (error) {
      notify('error', errorMessage(error, 'The block could not be added.'));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="card admin-comments" aria-labelledby="comments-tab-heading">
      <h2 id="comments-tab-heading" ref={headingRef} tabIndex={-1}>
        Comments
      </h2>
      <AutoApproveSwitch
        id="comments-auto-approve"
        label="Approve comments from known commenters automatically"
        hint="Known: someone with an approved comment before. Their next comments show at once, on every post."
        load={(signal) => getCommentSettings(api, signal)}
        save={(settings) => saveCommentSettings(api, settings)}
        deps={[api]}
        saved={AUTO_APPROVE_SAVED}
      />
      <div role="tablist" aria-label="Comment status" className="admin-tabs admin-comment-statuses">
        {COMMENT_STATUSES.map((s, index) => (
          <button
            key={s}
            ref={(el) => {
              tabRefs.current[s] = el;
            }}
            type="button"
            role="tab"
            id={`comments-status-${s}`}
            aria-selected={status === s}
            aria-controls="comments-status-panel"
            tabIndex={status === s ? 0 : -1}
            className={status === s ? 'admin-tab active' : 'admin-tab'}
            onClick={() => chooseStatus(s)}
            onKeyDown={(event) => onTabKey(event, index)}
          >
            {STATUS_LABELS[s]}
            {counts && <span className="admin-comment-count"> ({counts[s]})</span>}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id="comments-status-panel"
        aria-labelledby={`comments-status-${status}`}
        className="admin-comment-panel"
      >
        {list.status === 'loading' && <p role="status">Loading...</p>}
        {list.status === 'error' && (
          <LoadFailed
            error={errorMessage(list.error, 'The comments could not be loaded.')}
            onRetry={() => setReload((n) => n + 1)}
          />
        )}
        {data &&
          (data.items.length === 0 ? (
            <p className="empty">{EMPTY_TEXTS[status]}</p>
          ) : (
            <>
              <ol className="admin-comment-list" ref={listRef}>
                {data.items.map((comment) => (
                  <CommentRow
                    key={comment.id}
                    comment={comment}
                    actions={actionsFor(status)}
                    busy={busy?.id === comment.id ? busy.action : null}
                    disabled={busy !== null}
                    onAction={(action) => void act(comment, action)}
                    onBlock={(scope) => void block(comment, scope)}
                    onReplied={() => setReload((n) => n + 1)}
                  />
                ))}
              </ol>
              <Pagination
                page={page}
                pageSize={data.pageSize}
                total={data.total}
                onPageChange={setPage}
                label={`${STATUS_LABELS[status]} comments pages`}
              />
            </>
          ))}
      </div>
    </section>
  );
}

interface CommentRowProps {
  comment: AdminComment;
  actions: CommentAction[];
  /** The action under way on this row. */
  busy: CommentAction | BlockScope | null;
  disabled: boolean;
  onAction(action: CommentAction): void;
  onBlock(scope: BlockScope): void;
  /** The owner's reply was published: the list is loaded again. */
  onReplied(): void;
}

const BLOCK_TEXTS: Record<BlockScope, { label: string; pending: string }> = {
  account: { label: 'Block this account', pending: 'Blocking...' },
  server: { label: 'Block this server', pending: 'Blocking...' },
};

function CommentRow({ comment, actions, busy, disabled, onAction, onBlock, onReplied }: CommentRowProps) {
  const { author, post } = comment;
  const [replying, setReplying] = useState(false);
  // Only an approved comment can be answered, and never the owner's own.
  const canReply = comment.status === 'approved' && !comment.byOwner;
  const targets = blockTargetsOf(author);
  const scopes = (['account', 'server'] as const).filter((scope) =>
    scope === 'account' ? targets.actor : targets.domain,
  );
  const titleId = `admin-comment-${comment.id}`;
  const handle = author.handle && author.handle !== author.name ? author.handle : null;
  return (
    <li>
      <article className="admin-comment" aria-labelledby={titleId} aria-busy={busy !== null} tabIndex={-1}>
        <header>
          <p id={titleId} className="admin-comment-title">
            <span className="visually-hidden">Comment by {author.name} on </span>
            {post.url ? <Link to={post.url}>{post.title}</Link> : post.title}
          </p>
          <p className="admin-comment-meta">
            {author.url ? (
              <a href={author.url} rel="nofollow ugc noopener">
                {author.name}
              </a>
            ) : (
              <span className="admin-comment-author">{author.name}</span>
            )}
            {handle && <span> {handle}</span>}
            {' · '}
            <time dateTime={comment.createdAt}>{formatDateTime(comment.createdAt)}</time>
            {comment.via && <span> · via {comment.via}</span>}
            {comment.parentId !== null && <span> · a reply</span>}
            {comment.byOwner && <span> · your reply (shown as the author&apos;s)</span>}
          </p>
        </header>
        {/* Sanitised by the posts service when the comment (and its change) was stored. */}
        {comment.proposedContent ? (
          <>
            <p className="admin-comment-change">
              Changed by its author after approval. Readers see the approved text until you approve the
              change.
            </p>
            <p className="admin-comment-label">Approved text</p>
            <div className="admin-comment-text" dangerouslySetInnerHTML={{ __html: comment.content }} />
            <p className="admin-comment-label">Proposed change</p>
            <div
              className="admin-comment-text admin-comment-proposed"
              dangerouslySetInnerHTML={{ __html: comment.proposedContent }}
            />
          </>
        ) : (
          <div className="admin-comment-text" dangerouslySetInnerHTML={{ __html: comment.content }} />
        )}
        <div className="admin-actions">
          {actions.map((action) => (
            <button
              key={action}
              type="button"
              className={`button button-small ${ACTION_CLASSES[action]}`.trim()}
              disabled={disabled}
              onClick={() => onAction(action)}
            >
              {busy === action ? actionTexts(action, comment).pending : actionTexts(action, comment).label}
              <span className="visually-hidden">, comment by {author.name}</span>
            </button>
          ))}
          {scopes.map((scope) => (
            <button
              key={scope}
              type="button"
              className="button button-small button-danger"
              disabled={disabled}
              onClick={() => onBlock(scope)}
            >
              {busy === scope ? BLOCK_TEXTS[scope].pending : BLOCK_TEXTS[scope].label}
              <span className="visually-hidden">
                {scope === 'account' ? `, ${author.handle ?? author.name}` : `, ${targets.domain}`}
              </span>
            </button>
          ))}
          {canReply && (
            <button
              type="button"
              className="button button-small button-secondary"
              aria-expanded={replying}
              disabled={disabled}
              onClick={() => setReplying((open) => !open)}
            >
              Reply<span className="visually-hidden"> to {author.name}</span>
            </button>
          )}
        </div>
        {canReply && replying && (
          <CommentReplyForm
            commentId={comment.id}
            authorName={author.name}
            onDone={() => setReplying(false)}
            onReplied={onReplied}
          />
        )}
      </article>
    </li>
  );
}
