import type { CommentSettings } from '@blog/contracts/comments';
import { useState, type ReactNode } from 'react';
import { errorMessage } from '../../../api/client';
import { LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import './comments.css';

interface AutoApproveSwitchProps {
  /** The checkbox's id; the hint and the message line take ids from it. */
  id: string;
  label: string;
  /** The one line under the label: what "known" means and where the switch acts. */
  hint: ReactNode;
  /** Load and save the setting; each deps change loads again. */
  load(signal: AbortSignal): Promise<CommentSettings>;
  save(settings: CommentSettings): Promise<CommentSettings>;
  deps: readonly unknown[];
  /** Said once the server has stored the new value. */
  saved: { on: string; off: string };
}

type Message = { kind: 'pending' | 'success' | 'error'; text: string } | null;

/**
 * "Approve comments from known commenters automatically": a labelled checkbox
 * saved as soon as it changes. While the save runs it shows the new value and "Saving...";
 * a refusal puts the old value back and says why. It stays focusable throughout (a disabled
 * control would drop the keyboard user's focus), so a second change waits for the first.
 */
export function AutoApproveSwitch({ id, label, hint, load, save, deps, saved }: AutoApproveSwitchProps) {
  const [reload, setReload] = useState(0);
  const loaded = useAsync(load, [...deps, reload]);
  // The value the owner last chose (over the loaded one), and the save's progress.
  const [chosen, setChosen] = useState<{ from: CommentSettings; on: boolean } | null>(null);
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState<Message>(null);
  const base = loaded.status === 'ready' ? loaded.data : null;
  const on = base ? (chosen?.from === base ? chosen.on : base.autoApproveKnown) : false;

  const change = async (next: boolean) => {
    if (!base || saving) return;
    setChosen({ from: base, on: next });
    setSaving(true);
    setMessage({ kind: 'pending', text: 'Saving...' });
    try {
      const answer = await save({ autoApproveKnown: next });
      setChosen({ from: base, on: answer.autoApproveKnown });
      setMessage({ kind: 'success', text: answer.autoApproveKnown ? saved.on : saved.off });
    } catch (error) {
      setChosen({ from: base, on: !next });
      setMessage({
        kind: 'error',
        text: errorMessage(error, 'The setting could not be saved. Please try again.'),
      });
    } finally {
      setSaving(false);
    }
  };

  if (loaded.status === 'loading') return <p role="status">Loading the comment setting...</p>;
  if (loaded.status === 'error')
    return (
      <LoadFailed
        error={errorMessage(loaded.error, 'The comment setting could not be loaded.')}
        onRetry={() => setReload((n) => n + 1)}
      />
    );

  return (
    <div className="admin-auto-approve" aria-busy={saving}>
      <label className="admin-switch" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={on}
          aria-describedby={`${id}-hint`}
          aria-disabled={saving || undefined}
          onChange={(event) => void change(event.target.checked)}
          // Inside the post form, Enter on the box would send the whole post.
          onKeyDown={(event) => {
            if (event.key === 'Enter') event.preventDefault();
          }}
        />
        <span>{label}</span>
      </label>
      <p id={`${id}-hint`} className="admin-hint">
        {hint}
      </p>
      {/* Both lines stay in the page, so a screen reader hears each text that appears in them. */}
      <p
        id={`${id}-status`}
        role="status"
        className={message?.kind === 'success' ? 'form-success' : 'admin-hint'}
      >
        {message?.kind === 'error' ? null : message?.text}
      </p>
      <p id={`${id}-error`} role="alert" className="form-error">
        {message?.kind === 'error' ? message.text : null}
      </p>
    </div>
  );
}
