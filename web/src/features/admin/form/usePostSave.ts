import { AdminText } from '@blog/contracts/admin';
import type { PostView } from '@blog/contracts/posts';
import { useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useSession } from '../../../session/SessionContext';
import {
  clearDraft,
  clearSubmission,
  loadSubmission,
  saveDraft,
  saveSubmission,
  type Draft,
} from '../lib/draft';
import { submissionFor, type Submission } from '../lib/submission';
import { formSaveError, mayHaveBeenSaved, saveBannerMessage, saveNotification } from '../lib/saveErrors';
import { sendPostForm } from '../lib/upload';
import { useNotify } from '../ui/Notifications';
import type { UploadPhase } from './UploadOverlay';

export interface SaveFailure {
  /** The dashboard banner (docs/product.md#error-texts). */
  banner: string;
  /** The form's own line. */
  form: string;
  canRetry: boolean;
}

/**
 * Sends the post (create or update) with its progress, then tells the owner (docs/product.md#how-the-screens-behave, #error-texts).
 * A network failure or timeout keeps the new post's draft and offers Retry. The same form
 * sent again carries the same Idempotency-Key, so a Retry after an answer lost on the way
 * never makes a second post; a new post's key is kept beside its draft, for a reload.
 */
export function usePostSave(post: PostView | undefined, onSaved: (post: PostView) => void) {
  const notify = useNotify();
  const navigate = useNavigate();
  const { session, logout } = useSession();
  const [upload, setUpload] = useState<UploadPhase | null>(null);
  const [failure, setFailure] = useState<SaveFailure | null>(null);
  const isNew = !post;
  const pending = useRef<Submission | null | undefined>(undefined);
  if (pending.current === undefined)
    pending.current = isNew ? loadSubmission(window.localStorage, Date.now()) : null;

  const keep = (submission: Submission | null) => {
    pending.current = submission;
    if (!isNew) return;
    try {
      if (submission) saveSubmission(window.localStorage, submission);
      else clearSubmission(window.localStorage);
    } catch {
      // Storage refused: the key still lives in memory for a Retry without a reload.
    }
  };

  const save = async (body: FormData, draft: () => Draft, retrying: boolean) => {
    setFailure(null);
    setUpload({ phase: 'uploading', percent: 0 });
    const submission = submissionFor(body, pending.current ?? null, Date.now());
    keep(submission);
    try {
      const saved = await sendPostForm({
        idempotencyKey: submission.key,
        method: isNew ? 'POST' : 'PUT',
        url: isNew ? '/api/posts' : `/api/posts/${post.id}`,
        body,
        token: session?.token ?? null,
        onProgress: (percent) =>
          setUpload((u) => (u?.phase === 'uploading' ? { phase: 'uploading', percent } : u)),
        onUploaded: () => setUpload({ phase: 'processing' }),
        onUnauthorized: () => {
          logout();
          navigate('/login', { replace: true });
        },
      });
      setUpload(null);
      pending.current = null;
      if (isNew) clearDraft(window.localStorage);
      notify('success', isNew ? AdminText.uploaded : AdminText.updated);
      onSaved(saved);
    } catch (error) {
      setUpload(null);
      const line = formSaveError(error, retrying);
      // A refusal (invalid, 422) ends the submission; the next send is a new one.
      if (!mayHaveBeenSaved(error)) keep(null);
      if (line.canRetry && isNew) {
        try {
          saveDraft(window.localStorage, draft());
        } catch {
          // Storage refused: the form itself still holds everything for Retry.
        }
      }
      setFailure({ banner: saveBannerMessage(error), form: line.message, canRetry: line.canRetry });
      notify('error', saveNotification(isNew ? 'create' : 'update', error));
    }
  };

  return { upload, failure, save };
}
