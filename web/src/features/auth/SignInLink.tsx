import type { ReactNode } from 'react';
import { useLinkClickHandler } from 'react-router-dom';

/**
 * The sign-in screens' links to each other. These screens load on demand and cannot import
 * components/Link: that made Rolldown (1.2, rolldown#10731) move React out of the reader's
 * bundle into a chunk of its own, a second script to fetch before any page could start. The
 * build fails if that happens again (web/shell.ts).
 */
export function SignInLink({ to, children }: { to: '/login' | '/register'; children: ReactNode }) {
  const follow = useLinkClickHandler<HTMLAnchorElement>(to);
  return (
    <a href={to} onClick={follow}>
      {children}
    </a>
  );
}
