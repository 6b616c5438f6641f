import type { ButtonHTMLAttributes } from 'react';

type SubmitButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type'> & {
  /** A submit is under way: the button is disabled (no second submit) and says `pendingLabel`. */
  pending: boolean;
  pendingLabel?: string;
};

/** A form's submit button, disabled while its submit runs. */
export function SubmitButton({
  pending,
  pendingLabel,
  disabled,
  className = 'button',
  children,
  ...rest
}: SubmitButtonProps) {
  return (
    <button type="submit" className={className} disabled={pending || disabled} {...rest}>
      {pending && pendingLabel ? pendingLabel : children}
    </button>
  );
}
