import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Link } from '../../../components/Link';
import { badgeText, groupPlaces, placeHref, placeName, type PlaceEntry } from './placeRules';

interface AdminNavProps {
  places: readonly PlaceEntry[];
  current: PlaceEntry;
  counts: Record<string, number>;
  /** After a place is chosen from the phone's menu (which then closes): where the focus goes. */
  onChosenFromMenu: () => void;
}

/**
 * The dashboard's navigation (docs/product.md, the Admin Dashboard): the places in their groups,
 * a side column on a wide screen; on a narrow one a disclosure button opens the same list.
 * Plain links, so each place has its address, and Tab and Enter are all the keyboard needs.
 */
export function AdminNav({ places, current, counts, onChosenFromMenu }: AdminNavProps) {
  const [open, setOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const listId = useId();
  const groups = useMemo(() => groupPlaces(places), [places]);
  // The button exists only on a narrow screen (CSS decides); the wide column never closes.
  const isMenu = () => !!toggleRef.current && getComputedStyle(toggleRef.current).display !== 'none';

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return;
    event.preventDefault();
    setOpen(false);
    toggleRef.current?.focus();
  };

  const chosen = () => {
    if (!isMenu()) return;
    setOpen(false);
    onChosenFromMenu();
  };

  return (
    <nav className={open ? 'admin-nav open' : 'admin-nav'} aria-label="Dashboard" onKeyDown={onKeyDown}>
      <button
        ref={toggleRef}
        type="button"
        className="admin-nav-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((was) => !was)}
      >
        <span className="admin-nav-toggle-icon" aria-hidden="true" />
        Dashboard menu: <span className="admin-nav-toggle-current">{current.label}</span>
      </button>
      <div id={listId} className="admin-nav-groups">
        {groups.map((group) => {
          // A group of one place named like it (Stats, Account) needs no heading over it.
          const titled = group.places.length > 1 || group.places[0]!.label !== group.label;
          const headingId = `${listId}-${group.id}`;
          return (
            <div key={group.id} className="admin-nav-group">
              {titled && (
                <h2 id={headingId} className="admin-nav-heading">
                  {group.label}
                </h2>
              )}
              <ul className="admin-nav-list" aria-labelledby={titled ? headingId : undefined}>
                {group.places.map((place) => {
                  const here = place.id === current.id;
                  const count = counts[place.id];
                  const name = placeName(place, count);
                  return (
                    <li key={place.id}>
                      <Link
                        to={placeHref(place.id)}
                        className={here ? 'admin-nav-link current' : 'admin-nav-link'}
                        aria-current={here ? 'page' : undefined}
                        // The count's meaning in words ("Comments, 2 pending"): the badge alone is a bare number.
                        aria-label={name !== place.label ? name : undefined}
                        onClick={chosen}
                      >
                        <span className="admin-nav-label">{place.label}</span>
                        {name !== place.label && (
                          // The space keeps the visible text "Comments 2", a part of the name.
                          <>
                            {' '}
                            <span className="admin-nav-badge" aria-hidden="true">
                              {badgeText(count!)}
                            </span>
                          </>
                        )}
                      </Link>
                    </li>
                  );
                })}
              </ul>
            </div>
          );
        })}
      </div>
    </nav>
  );
}
