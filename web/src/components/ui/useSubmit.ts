import { useCallback, useRef, useState } from 'react';
import type { StatusMessage } from './StatusLine';

export interface SubmitOptions {
  /** The error line's text when the work throws; null leaves the line empty. */
  failure(error: unknown): string | null | Promise<string | null>;
  /** Success hands the page over (a navigation): the form stays pending, so no second submit. */
  leavesPage?: boolean;
}

/** Where one submit reports: React state in a form, plain functions in a test. */
export interface SubmitTarget {
  /** True while a submit runs: a second one is ignored (Enter pressed twice). */
  running: { current: boolean };
  setPending(pending: boolean): void;
  setMessage(message: StatusMessage): void;
}

/**
 * One submit: pending with the message cleared, then `work`; the success text it returns or the
 * failure's text becomes the message, and pending ends. Resolves true when the work succeeded,
 * false when it failed or another submit was running.
 */
export async function runSubmit(
  target: SubmitTarget,
  work: () => Promise<string | void>,
  options: SubmitOptions,
): Promise<boolean> {
  if (target.running.current) return false;
  target.running.current = true;
  target.setPending(true);
  target.setMessage(null);
  let succeeded = false;
  try {
    const success = await work();
    if (success) target.setMessage({ kind: 'success', text: success });
    succeeded = true;
  } catch (error) {
    const text = await options.failure(error);
    if (text !== null) target.setMessage({ kind: 'error', text });
  } finally {
    if (!(succeeded && options.leavesPage)) {
      target.running.current = false;
      target.setPending(false);
    }
  }
  return succeeded;
}

/**
 * A form's submit state: `pending` while `submit(work, options)` runs, then `message` (the
 * work's success text or the failure's). `fail` shows an error found before sending
 * (the contracts' validation).
 */
export function useSubmit() {
  const running = useRef(false);
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState<StatusMessage>(null);
  const submit = useCallback(
    (work: () => Promise<string | void>, options: SubmitOptions) =>
      runSubmit({ running, setPending, setMessage }, work, options),
    [],
  );
  const fail = useCallback((text: string) => setMessage({ kind: 'error', text }), []);
  return { pending, message, setMessage, submit, fail };
}
