import { NOTIFICATION_FADE_MS, NOTIFICATION_MS } from '@blog/contracts/admin';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';

export type NotificationKind = 'success' | 'error' | 'warning' | 'info';
interface Note {
  id: number;
  kind: NotificationKind;
  text: string;
  leaving: boolean;
}

type Notify = (kind: NotificationKind, text: string, durationMs?: number) => void;
const NotifyContext = createContext<Notify>(() => undefined);

export const useNotify = () => useContext(NotifyContext);

/**
 * Toasts (docs/product.md#screens): gone after 5 s with a 300 ms fade. Errors are read out at once
 * (role=alert), the others politely (role=status).
 */
export function NotificationProvider({ children }: { children: ReactNode }) {
  const [notes, setNotes] = useState<Note[]>([]);
  const nextId = useRef(0);
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());

  const later = useCallback((ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      run();
    }, ms);
    timers.current.add(timer);
  }, []);

  const dismiss = useCallback(
    (id: number) => {
      setNotes((all) => all.map((n) => (n.id === id ? { ...n, leaving: true } : n)));
      later(NOTIFICATION_FADE_MS, () => setNotes((all) => all.filter((n) => n.id !== id)));
    },
    [later],
  );

  const notify = useCallback<Notify>(
    (kind, text, durationMs = NOTIFICATION_MS) => {
      const id = ++nextId.current;
      setNotes((all) => [...all, { id, kind, text, leaving: false }]);
      later(durationMs, () => dismiss(id));
    },
    [dismiss, later],
  );

  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach(clearTimeout);
  }, []);

  const value = useMemo(() => notify, [notify]);
  return (
    <NotifyContext.Provider value={value}>
      {children}
      <div className="admin-notifications">
        <div role="status" aria-live="polite">
          {notes
            .filter((n) => n.kind !== 'error')
            .map((n) => (
              <Toast key={n.id} note={n} onClose={dismiss} />
            ))}
        </div>
        <div role="alert" aria-live="assertive">
          {notes
            .filter((n) => n.kind === 'error')
            .map((n) => (
              <Toast key={n.id} note={n} onClose={dismiss} />
            ))}
        </div>
      </div>
    </NotifyContext.Provider>
  );
}

function Toast({ note, onClose }: { note: Note; onClose(id: number): void }) {
  return (
    <div
      className={`admin-toast admin-toast-${note.kind}${note.leaving ? ' leaving' : ''}`}
      data-kind={note.kind}
    >
      <span>{note.text}</span>
      <button
        type="button"
        className="admin-toast-close"
        aria-label="Dismiss notification"
        onClick={() => onClose(note.id)}
      >
        ×
      </button>
    </div>
  );
}
