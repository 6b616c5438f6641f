import type { DigestRunResult } from '@blog/contracts/mail';
import { useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine, useSubmit } from '../../../components/ui';
import { formatDateTime } from '../../../lib/format';
import { runDigest } from '../lib/adminApi';

/** 'Send digest now': runs this week's digest and shows the answer (week, sent, posts). */
export function DigestAction() {
  const api = useApi();
  const [result, setResult] = useState<DigestRunResult | null>(null);
  const { pending, message, submit } = useSubmit();
  const run = () =>
    submit(
      async () => {
        setResult(null);
        setResult(await runDigest(api));
      },
      { failure: (error) => errorMessage(error, 'Failed to send the digest') },
    );
  return (
    <div className="admin-digest">
      <button type="button" className="button button-secondary" disabled={pending} onClick={() => void run()}>
        {pending ? 'Sending...' : 'Send digest now'}
      </button>
      <p role="status" className="admin-digest-result">
        {result &&
          `Week of ${formatDateTime(result.week) || result.week}: sent ${result.sent}, posts ${result.posts}${result.skipped ? ' (no posts this week, nothing sent)' : ''}`}
      </p>
      {message && <ErrorLine error={message.text} />}
    </div>
  );
}
