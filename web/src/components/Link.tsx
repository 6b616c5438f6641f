import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { useHref, useLinkClickHandler, useLocation, useResolvedPath } from 'react-router-dom';
import { isActivePath } from '../lib/activePath';

/*
 * The app's links, in place of react-router's <Link> and <NavLink>. Theirs carry framework
 * mode's route prefetching (module and data <link> tags, single-fetch URLs, the RSC router's
 * variant), which this app never uses but every reader would download with them. These keep
 * what the app does use: a real href, and a plain click that navigates in the app (a modified
 * click, a middle button or another target is left to the browser).
 */

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** An absolute path, with its query if any. */
  to: string;
}

export function Link({ to, onClick, target, ...anchor }: LinkProps) {
  const href = useHref(to);
  const follow = useLinkClickHandler<HTMLAnchorElement>(to, { target });
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (!event.defaultPrevented) follow(event);
  };
  return <a {...anchor} href={href} target={target} onClick={click} />;
}

/** A link marked `active` (class and aria-current) on its own page and, without `end`, below it. */
export function NavLink({ end, className, ...link }: LinkProps & { end?: boolean }) {
  const { pathname } = useLocation();
  const active = isActivePath(pathname, useResolvedPath(link.to).pathname, end);
  return (
    <Link
      {...link}
      className={[className, active && 'active'].filter(Boolean).join(' ') || undefined}
      aria-current={active ? 'page' : undefined}
    />
  );
}
