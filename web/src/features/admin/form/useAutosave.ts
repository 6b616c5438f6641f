import { AUTOSAVE_DELAY_MS, SAVED_INDICATOR_MS } from '@blog/contracts/admin';
import { useCallback, useEffect, useRef, useState } from 'react';
import { saveDraft, type Draft } from '../lib/draft';

export type AutosaveState = 'idle' | 'saving' | 'saved' | 'failed';

/**
 * The new-post draft (docs/product.md#how-the-screens-behave): saved 2 s after a change when `worth` says so; the
 * indicator shows saving, then 'Saved locally' for 3 s, or 'Save failed'. `changes` counts
 * the owner's edits (a restored draft is not a change).
 */
export function useAutosave(enabled: boolean, changes: number, worth: boolean, draft: () => Draft) {
  const [state, setState] = useState<AutosaveState>('idle');
  const latest = useRef(draft);
  latest.current = draft;

  const saveNow = useCallback(() => {
    try {
      saveDraft(window.localStorage, latest.current());
      setState('saved');
    } catch {
      setState('failed');
    }
  }, []);

  useEffect(() => {
    if (!enabled || changes === 0 || !worth) return;
    setState('saving');
    const timer = setTimeout(saveNow, AUTOSAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [enabled, changes, worth, saveNow]);

  useEffect(() => {
    if (state !== 'saved') return;
    const timer = setTimeout(() => setState('idle'), SAVED_INDICATOR_MS);
    return () => clearTimeout(timer);
  }, [state]);

  return { state, saveNow };
}
