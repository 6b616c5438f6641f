import { useState } from 'react';

export type FormStatus = 'idle' | 'sending' | 'success' | 'error';

/** idle → sending → success or error (SPEC.md §2 contact and subscribe forms). */
export function useFormStatus() {
  const [status, setStatus] = useState<FormStatus>('idle');
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
  return { status, run };
}
