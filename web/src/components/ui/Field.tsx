import type { ReactNode } from 'react';

interface FieldProps {
  /** The id of the control inside, which the label names. */
  id: string;
  label: ReactNode;
  /** Classes besides "field". */
  className?: string;
  children: ReactNode;
}

/** A labelled form control: the label above, the control (and any hint) below. */
export function Field({ id, label, className, children }: FieldProps) {
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}
