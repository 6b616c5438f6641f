import type { NewsletterStatus } from '@blog/contracts/newsletter';
import { useEffect, useState } from 'react';
import type { ApiClient } from '../../../api/client';
import { EMAIL_POLL_MS } from './emailStatus';
import { getEmailStatus } from './newsletterApi';

export type EmailStatusState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'error' }
  | { status: 'ready'; data: NewsletterStatus };

/**
 * A post's e-mail status, asked again every EMAIL_POLL_MS while it is being sent; none asked
 * when `postId` is null (a new post) or `enabled` is false. `refresh` changes to ask again.
 */
export function useEmailStatus(
  api: ApiClient,
  postId: number | null,
  enabled = true,
  refresh = 0,
): EmailStatusState {
  const [state, setState] = useState<EmailStatusState>({ status: 'idle' });
  useEffect(() => {
    if (postId === null || !enabled) {
      setState({ status: 'idle' });
      return;
    }
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = (first: boolean) => {
      if (first) setState((current) => (current.status === 'ready' ? current : { status: 'loading' }));
      getEmailStatus(api, postId, controller.signal).then(
        (data) => {
          if (controller.signal.aborted) return;
          setState({ status: 'ready', data });
          if (data.status === 'sending') timer = setTimeout(() => load(false), EMAIL_POLL_MS);
        },
        () => {
          if (!controller.signal.aborted) setState({ status: 'error' });
        },
      );
    };
    load(true);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [api, postId, enabled, refresh]);
  return state;
}
