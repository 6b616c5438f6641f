import type { ApiClient } from '../../../api/client';

/**
 * The dashboard's places and their groups, without React: which place a URL opens, each place's
 * link, and the names the navigation reads out (docs/product.md, the Admin Dashboard).
 */

/** The navigation's groups, in their order; a place names one of these. */
export const PLACE_GROUPS = [
  { id: 'content', label: 'Content' },
  { id: 'fediverse', label: 'Fediverse' },
  { id: 'audience', label: 'Audience' },
  { id: 'site', label: 'Site' },
  { id: 'stats', label: 'Stats' },
  { id: 'account', label: 'Account' },
] as const;

export type PlaceGroupId = (typeof PLACE_GROUPS)[number]['id'];

/** What the navigation needs of a place; the registry (places.tsx) adds its component. */
export interface PlaceEntry {
  /** The `?tab=` value: links, e-mails and docs use it, so it never changes once published. */
  id: string;
  label: string;
  group: PlaceGroupId;
  badge?: PlaceBadge;
}

/** A count shown beside a place's name (unread notifications, comments waiting). */
export interface PlaceBadge {
  /** Reads the count: when the dashboard opens, at each change of place, and when a place asks (useRefreshBadges). */
  load: (api: ApiClient, signal: AbortSignal) => Promise<number>;
  /** What the count is, for screen readers: `(n) => \`${n} unread\`` reads "Notifications, 3 unread". */
  describe: (count: number) => string;
}

/** The place the dashboard opens with, at a bare `/admin`. */
export const HOME_PLACE = 'posts';

/** The place a URL names; an unknown or missing `tab` opens the first place. */
export function placeFromParams<P extends PlaceEntry>(places: readonly P[], params: URLSearchParams): P {
  const id = params.get('tab');
  return places.find((p) => p.id === id) ?? places.find((p) => p.id === HOME_PLACE) ?? places[0]!;
}

/** A place's own address; the first place is the bare dashboard, as it always was. */
export function placeHref(id: string): string {
  return id === HOME_PLACE ? '/admin' : `/admin?tab=${encodeURIComponent(id)}`;
}

/** The link's accessible name: "Notifications, 3 unread"; no count (or 0) leaves the label alone. */
export function placeName(place: PlaceEntry, count: number | undefined): string {
  return place.badge && count ? `${place.label}, ${place.badge.describe(count)}` : place.label;
}

/** What the badge shows: the number, capped so it stays small. */
export function badgeText(count: number): string {
  return count > 99 ? '99+' : String(count);
}

export interface PlaceGroupView<P extends PlaceEntry> {
  id: PlaceGroupId;
  label: string;
  places: P[];
}

/** The groups that hold a place, each with its places in the registry's order. */
export function groupPlaces<P extends PlaceEntry>(places: readonly P[]): PlaceGroupView<P>[] {
  return PLACE_GROUPS.map((g) => ({
    id: g.id,
    label: g.label,
    places: places.filter((p) => p.group === g.id),
  })).filter((g) => g.places.length > 0);
}

/** Two places with one id would share one URL: the registry is checked once, at load. */
export function checkRegistry(places: readonly PlaceEntry[]): void {
  const seen = new Set<string>();
  for (const p of places) {
    if (!/^[a-z][a-z0-9-]*$/.test(p.id))
      throw new Error(`Dashboard place id "${p.id}" is not a URL-safe name`);
    if (seen.has(p.id)) throw new Error(`Dashboard place "${p.id}" is listed twice`);
    seen.add(p.id);
  }
  if (!seen.has(HOME_PLACE)) throw new Error(`The dashboard needs its home place "${HOME_PLACE}"`);
}
