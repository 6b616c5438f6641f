import type { MoveFollowersResult } from '@blog/contracts/social';
import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine } from '../../../components/ui';
import { useNotify } from '../ui/Notifications';

/**
 * Moves the blog's followers to another account of the owner's (FEP-7628): that account must list
 * the blog among its aliases first, which the hint says how. Asked once more before it goes: the
 * followers' servers move them, and only the other account could bring them back. `movedTo`: where
 * they were moved already (the Site tab clears it).
 */
export function MoveFollowers({
  address,
  followers,
  movedTo,
}: {
  /** The blog's handle, which the other account lists. */
  address: string | null;
  followers: number | null;
  movedTo: string;
}) {
  const api = useApi();
  const notify = useNotify();
  const id = useId();
  const [target, setTarget] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [moving, setMoving] = useState(false);
  const [moved, setMoved] = useState(movedTo);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const account = target.trim();
    if (!/^https?:\/\/\S+$/.test(account))
      return setError("Give the account's address, such as https://mastodon.example/users/you.");
    const who =
      followers === null ? 'the followers' : `${followers} ${followers === 1 ? 'follower' : 'followers'}`;
    if (
      !window.confirm(
        `Move ${who} to ${account}? Their servers move them there; only that account can bring them back.`,
      )
    )
      return;
    setMoving(true);
    setError(null);
    try {
      const result = await api.request<MoveFollowersResult>('/api/admin/fediverse/move', {
        method: 'POST',
        body: { target: account },
      });
      setMoved(result.movedTo);
      setTarget('');
      notify('success', `The followers are being moved to ${result.movedTo}.`);
    } catch (failure) {
      setError(errorMessage(failure, 'The followers could not be moved.'));
    } finally {
      setMoving(false);
    }
  };

  return (
    <section className="fediverse-section" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Move the followers</h3>
      {moved && (
        <p role="status" className="fediverse-moved">
          The followers were moved to <a href={moved}>{moved}</a>; the blog&apos;s profile points there (the
          Site tab clears it).
        </p>
      )}
      <p id={`${id}-hint`} className="fediverse-hint">
        To another account of yours: first list this blog there as an old account
        {address ? ` (${address})` : ''} (on Mastodon: Preferences, Account, Moving from a different account).
        The followers&apos; servers then move them there.
      </p>
      <form className="fediverse-move" onSubmit={(event) => void submit(event)} noValidate>
        <label htmlFor={`${id}-target`}>Account to move to</label>
        <input
          id={`${id}-target`}
          type="url"
          value={target}
          placeholder="https://mastodon.example/users/you"
          spellCheck={false}
          autoCapitalize="off"
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-hint ${id}-error`}
          onChange={(event) => setTarget(event.target.value)}
        />
        <button type="submit" className="button button-danger" disabled={moving}>
          {moving ? 'Moving...' : 'Move followers'}
        </button>
      </form>
      <ErrorLine id={`${id}-error`} error={error} />
    </section>
  );
}
