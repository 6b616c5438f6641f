import { NOTE_CONTENT_MAX } from '@blog/contracts/notes';
import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine } from '../../../components/ui';
import { useNotify } from '../ui/Notifications';
import { replyToComment } from './notesApi';
import './notes.css';

/**
 * The owner's answer to a comment, from the Comments place: shown under the post as the
 * author's, and sent to the commenter's server when the comment came from the fediverse.
 */
export function CommentReplyForm({
  commentId,
  authorName,
  onDone,
  onReplied,
}: {
  commentId: number;
  authorName: string;
  onDone(): void;
  onReplied(): void;
}) {
  const api = useApi();
  const notify = useNotify();
  const id = useId();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return setError('Write the reply first.');
    setSending(true);
    setError(null);
    try {
      const sent = await replyToComment(api, commentId, text);
      notify(
        'success',
        sent.federated
          ? `Reply published under the post and sent to ${authorName}.`
          : 'Reply published under the post.',
      );
      onDone();
      onReplied();
    } catch (failure) {
      setError(errorMessage(failure, 'The reply could not be sent.'));
      setSending(false);
    }
  };
  return (
    <form className="admin-comment-reply" onSubmit={(event) => void submit(event)} noValidate>
      <label htmlFor={`${id}-text`}>Your reply to {authorName}</label>
      <textarea
        id={`${id}-text`}
        rows={3}
        maxLength={NOTE_CONTENT_MAX}
        value={text}
        autoFocus
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint ${id}-error`}
        onChange={(event) => setText(event.target.value)}
      />
      <p id={`${id}-hint`} className="admin-comment-reply-hint">
        Markdown. Shown under the post as the author&apos;s.
      </p>
      <ErrorLine id={`${id}-error`} error={error} />
      <div className="admin-actions">
        <button type="submit" className="button button-small" disabled={sending}>
          {sending ? 'Sending...' : 'Send'}
        </button>
        <button type="button" className="button button-small button-secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
