import type { DigestRunResult } from '@blog/contracts/mail';
import { useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { formatDateTime } from '../../../lib/format';
import { runDigest } from '../lib/adminApi';

type State =
  | { status: 'idle' | 'running' }
  | { status: 'done'; result: DigestRunResult }
  | { status: 'error'; text: string };

/** 'Send digest now': runs this week's digest and shows the answer (week, sent, posts). */
export function DigestAction() {
  const api = useApi();
  const [state, setState] = useState<State>({ status: 'idle' });
  const run = async () => {
    setState({ status: 'running' });
    try {
      setState({ status: 'done', result: await runDigest(api) });
    } catch (error) {
      setState({ status: 'error', text: errorMessage(error, 'Failed to send the digest') });
    }
  };
  return (
    <div className="admin-digest">
      <button
        type="button"
        className="button button-secondary"
        disabled={state.status === 'running'}
        onClick={run}
      >
        {state.status === 'running' ? 'Sending...' : 'Send digest now'}
      </button>
      <p role="status" className="admin-digest-result">
        {state.status === 'done' &&
          `Week of ${formatDateTime(state.result.week) || state.result.week}: sent ${state.result.sent}, posts ${state.result.posts}${state.result.skipped ? ' (no posts this week, nothing sent)' : ''}`}
      </p>
      {state.status === 'error' && (
        <p role="alert" className="form-error">
          {state.text}
        </p>
      )}
    </div>
  );
}
