import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import type { PlaceEntry } from './placeRules';

const RefreshBadges = createContext<() => void>(() => undefined);

/** The provider of useRefreshBadges; AdminPage wraps the places in it. */
export const BadgeRefreshProvider = RefreshBadges.Provider;

/**
 * A place whose actions change a badge (marking notifications read, moderating a comment) calls
 * this after them, so the navigation's count follows at once instead of at the next change of place.
 */
export function useRefreshBadges(): () => void {
  return useContext(RefreshBadges);
}

/**
 * The badge counts by place id: read when the dashboard opens, when the place changes and when a
 * place asks. A count that fails to load is left out (no badge) rather than shown stale.
 */
export function useBadgeCounts(
  places: readonly PlaceEntry[],
  placeId: string,
): [Record<string, number>, () => void] {
  const api = useApi();
  const [counts, setCounts] = useState<Record<string, number>>({});
  const [round, setRound] = useState(0);
  const refresh = useCallback(() => setRound((n) => n + 1), []);

  useEffect(() => {
    const controller = new AbortController();
    for (const place of places) {
      if (!place.badge) continue;
      place.badge.load(api, controller.signal).then(
        (count) => setCounts((now) => (now[place.id] === count ? now : { ...now, [place.id]: count })),
        () => {
          if (controller.signal.aborted) return;
          setCounts((now) => {
            const { [place.id]: _gone, ...rest } = now;
            return rest;
          });
        },
      );
    }
    return () => controller.abort();
  }, [api, places, placeId, round]);

  return [counts, refresh];
}
