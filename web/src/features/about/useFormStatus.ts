import { useState } from 'react';
import { useActionData } from 'react-router-dom';
import type { FormAnswer } from '../../loaders';

export type FormStatus = 'idle' | 'sending' | 'success' | 'error';

/**
 * idle → sending → success or error (docs/product.md#about-contact-and-subscribe). A form posted
 * without JavaScript starts from the server's answer instead: its status and, after a
 * failure, the fields as they were sent.
 */
export function useFormStatus(form: FormAnswer['form']) {
  const answer = useActionData() as FormAnswer | undefined;
  const posted = answer?.form === form ? answer : null;
  const [status, setStatus] = useState<FormStatus>(posted ? (posted.ok ? 'success' : 'error') : 'idle');
  async function run(send: () => Promise<unknown>, onSuccess: () => void) {
    setStatus('sending');
    try {
      await send();
      setStatus('success');
      onSuccess();
    } catch {
      setStatus('error');
    }
  }
  return { status, run, postedFields: posted?.fields ?? {} };
}
