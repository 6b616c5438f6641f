import type { SiteCategory, SiteConfig, SiteEntry, SiteSubcategory } from '@blog/contracts/site';
import { buildListingPath } from '@blog/contracts/urls';
import { useEffect, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { NavLink } from '../../components/Link';

interface SectionSidebarProps {
  site: SiteConfig;
  category: SiteCategory;
  subcategory: SiteSubcategory;
  current: SiteEntry | null;
}

/**
 * The section sidebar (docs/product.md#screens): links to the sub-section and each named entry (the car
 * and motorcycle model pages). On small screens it is a drawer that Escape or the overlay closes.
 */
export function SectionSidebar({ site, category, subcategory }: SectionSidebarProps) {
  const [open, setOpen] = useState(false);
  const { pathname } = useLocation();
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && setOpen(false);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  const place = { category: category.label, submenu1: subcategory.label };
  return (
    <>
      <button
        type="button"
        className="button button-secondary sidebar-toggle"
        aria-expanded={open}
        aria-controls="section-sidebar"
        onClick={() => setOpen((value) => !value)}
      >
        {subcategory.label} pages
      </button>
      {open && <div className="sidebar-overlay" aria-hidden="true" onClick={() => setOpen(false)} />}
      <aside
        id="section-sidebar"
        className={open ? 'sidebar open' : 'sidebar'}
        aria-label={`${subcategory.label} pages`}
      >
        <h2 className="sidebar-title">{subcategory.label}</h2>
        <ul>
          <li>
            <NavLink to={buildListingPath(site, place)!} end>
              All {subcategory.label.toLowerCase()}
            </NavLink>
          </li>
          {subcategory.entries
            .filter((entry) => !entry.general)
            .map((entry) => (
              <li key={entry.segment}>
                <NavLink to={buildListingPath(site, { ...place, submenu2: entry.label })!}>
                  {entry.label}
                </NavLink>
              </li>
            ))}
        </ul>
      </aside>
    </>
  );
}
