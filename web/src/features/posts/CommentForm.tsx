import { COMMENT_CONTENT_MAX, CommentErrors, commentCreateSchema } from '@blog/contracts/comments';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useApi } from '../../api/ApiContext';
import { createComment } from '../../api/comments';
import { ErrorLine, Field, SubmitButton, useSubmit } from '../../components/ui';
import { characterCount, commentFailureText } from './commentRules';

export const COMMENT_THANKS = 'Thanks — your comment waits for approval.';
/** A known commenter's comment where the owner approves those automatically. */
export const COMMENT_PUBLISHED = 'Thanks — your comment is published.';

interface CommentFormProps {
  postId: number;
  /** The top comment answered, for a reply. */
  parentId?: number;
  /** Makes the form's ids unique on a page with several forms. */
  idPrefix: string;
  label: string;
  autoFocus?: boolean;
  /** The server approved the comment at once: the list above can show it. */
  onPublished?(): void;
}

/**
 * A signed-in reader's comment or reply: checked with the contract's rule before sending, then
 * pending on the server until the owner approves it. The server's refusals (too long, too many
 * per hour) show by the field.
 */
export function CommentForm({ postId, parentId, idPrefix, label, autoFocus, onPublished }: CommentFormProps) {
  const api = useApi();
  const [content, setContent] = useState('');
  const { pending, message, setMessage, submit, fail } = useSubmit();
  const fieldId = `${idPrefix}-content`;
  const countId = `${idPrefix}-count`;
  const errorId = `${idPrefix}-error`;
  const field = useRef<HTMLTextAreaElement>(null);
  // A reply form opens from its button: the text field takes the focus.
  useEffect(() => {
    if (autoFocus) field.current?.focus();
  }, [autoFocus]);
  const count = characterCount(content, COMMENT_CONTENT_MAX);
  const error = message?.kind === 'error' ? message.text : null;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = commentCreateSchema.safeParse({ content, parentId });
    if (!parsed.success) return fail(parsed.error.issues[0]?.message ?? CommentErrors.contentRequired);
    void submit(
      async () => {
        const sent = await createComment(api, postId, parsed.data);
        setContent('');
        if (sent.status !== 'approved') return COMMENT_THANKS;
        onPublished?.();
        return COMMENT_PUBLISHED;
      },
      {
        failure: (caught) =>
          commentFailureText(
            caught,
            CommentErrors.tooMany,
            'Your comment could not be sent. Please try again.',
          ),
      },
    );
  };

  return (
    <form className="form comment-form" onSubmit={onSubmit} noValidate>
      <Field id={fieldId} label={label}>
        <textarea
          id={fieldId}
          name="content"
          rows={5}
          required
          ref={field}
          value={content}
          onChange={(event) => {
            setContent(event.target.value);
            if (message?.kind === 'success') setMessage(null);
          }}
          aria-describedby={error ? `${countId} ${errorId}` : countId}
          aria-invalid={error || count.over ? true : undefined}
        />
        <p id={countId} className={count.over ? 'comment-count over' : 'comment-count'}>
          {count.text}
        </p>
      </Field>
      {/* One slot of the form for both lines: only one of them ever holds text. */}
      <div>
        <ErrorLine id={errorId} error={error} />
        {/* Always in place, so a screen reader hears the thanks that appears in it. */}
        <p role="status" className="form-success comment-thanks">
          {message?.kind === 'success' ? message.text : ''}
        </p>
      </div>
      <div>
        <SubmitButton pending={pending} pendingLabel="Sending...">
          {parentId ? 'Send reply' : 'Send comment'}
        </SubmitButton>
      </div>
    </form>
  );
}
