import { fediverseAddress } from '@blog/contracts/site';
import { useEffect, useState } from 'react';
import { useHydrated } from '../hooks/useHydrated';
import { useSite } from '../site/SiteContext';
import './fediverse-handle.css';

/** How long "Copied" stays before the button reads "Copy" again. */
const COPIED_MS = 2000;

/**
 * The blog's fediverse address, `@handle@host`, with a Copy button. The button comes with
 * JavaScript (nothing to copy with before); the address is text anyone can select.
 */
export function CopyableHandle({ address, label }: { address: string; label: string }) {
  const hydrated = useHydrated();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), COPIED_MS);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () =>
    navigator.clipboard.writeText(address).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  return (
    <span className="fediverse-handle">
      <code>{address}</code>
      {hydrated && (
        <button
          type="button"
          className="fediverse-copy"
          aria-label={state === 'copied' ? `${label} copied` : `Copy ${label}`}
          onClick={() => void copy()}
        >
          {state === 'copied' ? 'Copied' : 'Copy'}
        </button>
      )}
      <span className="visually-hidden" role="status">
        {state === 'copied'
          ? `${address} copied`
          : state === 'failed'
            ? 'Could not copy; select the text.'
            : ''}
      </span>
    </span>
  );
}

/** "Follow on Mastodon": the hint and the copyable address (About page and footer). */
export function FollowOnMastodon({ variant }: { variant: 'about' | 'footer' }) {
  const site = useSite();
  const address = fediverseAddress(site);
  if (!address) return null;
  if (variant === 'footer')
    return (
      <p className="footer-fediverse">
        Follow on Mastodon: <CopyableHandle address={address} label="the blog's fediverse handle" />
      </p>
    );
  return (
    <section className="card fediverse-follow" aria-labelledby="fediverse-follow-heading">
      <h2 id="fediverse-follow-heading">Follow on Mastodon</h2>
      <p>
        Search for <CopyableHandle address={address} label="the blog's fediverse handle" /> on Mastodon or any
        other fediverse server, and follow it: every new post then shows in your timeline, and your replies
        come back here as comments.
      </p>
    </section>
  );
}
