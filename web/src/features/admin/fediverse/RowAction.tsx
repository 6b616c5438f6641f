import { useState } from 'react';
import { errorMessage } from '../../../api/client';
import { useNotify } from '../ui/Notifications';

/** One row's call to the server, with what the notification says after it. */
export interface RowActionWork {
  /** Tells the running action apart from every other row's (its button alone shows busyLabel). */
  actionKey: string;
  busyLabel: string;
  work(): Promise<unknown>;
  done: string;
  failed: string;
}

/** The actions of one view's rows: one runs at a time, and every row's buttons wait for it. */
export interface RowActions {
  running: { key: string; busyLabel: string } | null;
  run(action: RowActionWork): Promise<void>;
}

/** Runs the view's row actions; onDone follows a success (reload the lists, move the focus). */
export function useRowActions(onDone: () => void): RowActions {
  const notify = useNotify();
  const [running, setRunning] = useState<RowActions['running']>(null);
  const run = async ({ actionKey, busyLabel, work, done, failed }: RowActionWork) => {
    if (running) return;
    setRunning({ key: actionKey, busyLabel });
    try {
      await work();
      notify('success', done);
      onDone();
    } catch (error) {
      notify('error', errorMessage(error, failed));
    } finally {
      setRunning(null);
    }
  };
  return { running, run };
}

interface RowActionProps extends RowActionWork {
  actions: RowActions;
  label: string;
  /** The row's name, read after the label by screen readers ("Approve @ann@social.example"). */
  target: string;
  tone?: 'danger' | 'secondary';
  /** Asked first; a No does nothing. */
  confirm?: string;
}

/** A button in a list row that calls the server: disabled while any row action runs. */
export function RowAction({ actions, label, target, tone, confirm, ...action }: RowActionProps) {
  const onClick = () => {
    if (confirm && !window.confirm(confirm)) return;
    void actions.run(action);
  };
  return (
    <button
      type="button"
      className={tone ? `button button-small button-${tone}` : 'button button-small'}
      disabled={actions.running !== null}
      onClick={onClick}
    >
      {actions.running?.key === action.actionKey ? actions.running.busyLabel : label}
      <span className="visually-hidden"> {target}</span>
    </button>
  );
}
