import { AdminText } from '@blog/contracts/admin';
import { useEffect } from 'react';
import { useBlocker } from 'react-router-dom';

/**
 * While a post uploads, leaving warns (docs/product.md#how-the-screens-behave): the browser's own prompt on reload or
 * close, and 'Uploads are still in progress. Are you sure you want to leave?' for links.
 */
export function useLeaveWarning(active: boolean) {
  // Any move away, a tab or list page of the dashboard too: the form that uploads would go.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      active &&
      (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search),
  );
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (window.confirm(AdminText.leaveWarning)) blocker.proceed();
    else blocker.reset();
  }, [blocker]);
  useEffect(() => {
    if (!active) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show (or at least need) a returnValue.
      event.returnValue = AdminText.leaveWarning;
      return AdminText.leaveWarning;
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [active]);
}
