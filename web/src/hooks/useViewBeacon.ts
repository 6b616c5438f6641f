import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';
import { useSession } from '../session/SessionContext';

/**
 * One beacon per page view (docs/product.md#visit-statistics): the path and
 * where the reader came from, sent with navigator.sendBeacon on the first load and on each
 * in-app navigation, never while an admin is signed in. No cookie, nothing stored here.
 */
export function useViewBeacon(): void {
  const { pathname } = useLocation();
  const { session } = useSession();
  const previous = useRef<string | null>(null);
  useEffect(() => {
    const referrer = previous.current ?? document.referrer;
    previous.current = window.location.href;
    if (session?.role === 'admin' || typeof navigator.sendBeacon !== 'function') return;
    const send = () =>
      navigator.sendBeacon(
        '/api/views',
        new Blob([JSON.stringify({ path: pathname, referrer })], { type: 'application/json' }),
      );
    // When the browser is idle: never in the way of the page being drawn.
    if ('requestIdleCallback' in window) window.requestIdleCallback(send, { timeout: 2000 });
    else setTimeout(send, 0);
    // Only the path counts: a new query or page number of the same list is the same page.
  }, [pathname]);
}
