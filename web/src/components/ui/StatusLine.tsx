/** What a form says after a submit: an error, announced at once, or a success. */
export type StatusMessage = { kind: 'success' | 'error'; text: string } | null;

/**
 * A form's message line. Rendered even when empty where a form keeps it in place, so a screen
 * reader hears the text that appears in it.
 */
export function StatusLine({ message }: { message: StatusMessage }) {
  const error = message?.kind === 'error';
  return (
    <p role={error ? 'alert' : 'status'} className={error ? 'form-error' : 'form-success'}>
      {message?.text}
    </p>
  );
}

/** A form's error line; fields point to its `id` with aria-describedby while it holds an error. */
export function ErrorLine({ id, error }: { id?: string; error: string | null | undefined }) {
  return (
    <p id={id} className="form-error" role="alert">
      {error}
    </p>
  );
}

/** A load that failed: its reason, announced, and a button that loads again. */
export function LoadFailed({
  error,
  onRetry,
  className = 'admin-actions',
}: {
  error: string;
  onRetry: () => void;
  className?: string;
}) {
  return (
    <div className={className}>
      <ErrorLine error={error} />
      <button type="button" className="button button-small button-secondary" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}
