import { buildListingPath } from '@blog/contracts/urls';
import type { SiteConfig } from '@blog/contracts/site';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { flushSync } from 'react-dom';
import { useLocation, useNavigate } from 'react-router-dom';
import { NavLink } from './Link';
import { useSession } from '../session/SessionContext';
import { useSite } from '../site/SiteContext';

interface MenuItem {
  label: string;
  to: string;
  children: MenuItem[];
}

/** The menu from the category tree: category → sub-categories → level-2 entries (General left out). */
export function menuFromSite(site: SiteConfig): MenuItem[] {
  const categories = site.categories.map((category) => ({
    label: category.label,
    to: buildListingPath(site, { category: category.label })!,
    children: category.subcategories
      .filter((sub) => !sub.general)
      .map((sub) => ({
        label: sub.label,
        to: buildListingPath(site, { category: category.label, submenu1: sub.label })!,
        children: sub.entries
          .filter((entry) => !entry.general)
          .map((entry) => ({
            label: entry.label,
            to: buildListingPath(site, {
              category: category.label,
              submenu1: sub.label,
              submenu2: entry.label,
            })!,
            children: [],
          })),
      })),
  }));
  return [
    { label: 'Home', to: '/', children: [] },
    ...categories,
    { label: 'About', to: '/about', children: [] },
  ];
}

/** Link words that say nothing out of context ('More' is a category of the default tree). */
const GENERIC_LINK_TEXT = new Set(['more', 'here', 'link', 'read more', 'click here', 'go', 'start']);

/** A menu label, with a few hidden words after it when the label alone would not say where it leads. */
function MenuLabel({ label }: { label: string }) {
  if (!GENERIC_LINK_TEXT.has(label.trim().toLowerCase())) return <>{label}</>;
  return (
    <>
      {label}
      <span className="visually-hidden"> posts</span>
    </>
  );
}

/** Links of one menu level: the direct children of the nearest list. */
function levelLinks(from: HTMLElement): HTMLAnchorElement[] {
  const list = from.closest('ul');
  if (!list) return [];
  return [...list.children]
    .map((li) => li.querySelector<HTMLAnchorElement>(':scope > .nav-item-row > a'))
    .filter((a): a is HTMLAnchorElement => a !== null);
}

/**
 * Main navigation (docs/product.md#screens): dropdowns and nested sub-dropdowns that open on hover and on
 * keyboard focus, arrow keys to move, Escape to close, a toggle on small screens, the active
 * section highlighted, and the Logout item when signed in.
 */
export function NavBar() {
  const site = useSite();
  const { session, logout } = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [mobileOpen, setMobileOpen] = useState(false);
  const items = menuFromSite(site);

  // A followed link closes the mobile menu.
  useEffect(() => setMobileOpen(false), [pathname]);

  return (
    <nav className="nav-bar" aria-label="Main">
      <div className="nav-inner">
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={mobileOpen}
          aria-controls="main-menu"
          onClick={() => setMobileOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span> Menu
        </button>
        <ul id="main-menu" className={mobileOpen ? 'nav-list open' : 'nav-list'}>
          {items.map((item) => (
            <MenuEntry key={item.to} item={item} level={0} />
          ))}
          {session && (
            <li className="nav-item">
              <div className="nav-item-row">
                <button
                  type="button"
                  className="nav-link nav-logout"
                  onClick={() => {
                    logout();
                    navigate('/');
                  }}
                >
                  Logout
                </button>
              </div>
            </li>
          )}
        </ul>
        {session && (
          <p className="nav-user">
            ({session.username} - {session.role})
          </p>
        )}
      </div>
    </nav>
  );
}

function MenuEntry({ item, level }: { item: MenuItem; level: number }) {
  const [open, setOpen] = useState(false);
  const li = useRef<HTMLLIElement>(null);
  const hasChildren = item.children.length > 0;
  const submenuId = `menu-${item.to.replace(/\W+/g, '-')}`;

  const focusFirstChild = () => {
    // Rendered open at once, so the first link is there to take focus in this same key press.
    flushSync(() => setOpen(true));
    li.current?.querySelector<HTMLAnchorElement>(':scope > ul a')?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLAnchorElement>) => {
    const links = levelLinks(event.currentTarget);
    const index = links.indexOf(event.currentTarget);
    const move = (step: number) => links[(index + step + links.length) % links.length]?.focus();
    const horizontal = level === 0;
    const next = horizontal ? 'ArrowRight' : 'ArrowDown';
    const previous = horizontal ? 'ArrowLeft' : 'ArrowUp';
    const into = horizontal ? 'ArrowDown' : 'ArrowRight';
    if (event.key === next) move(1);
    else if (event.key === previous) move(-1);
    else if (event.key === into && hasChildren) focusFirstChild();
    else if (event.key === 'ArrowLeft' && level > 0) {
      // Back to the parent item, closing this level.
      const parent = li.current?.parentElement
        ?.closest('li')
        ?.querySelector<HTMLAnchorElement>(':scope > .nav-item-row > a');
      parent?.focus();
    } else if (event.key === 'Escape') {
      setOpen(false);
      if (level > 0) {
        const parent = li.current?.parentElement
          ?.closest('li')
          ?.querySelector<HTMLAnchorElement>(':scope > .nav-item-row > a');
        parent?.focus();
      }
    } else return;
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    <li
      ref={li}
      className={`nav-item level-${level}${open ? ' open' : ''}`}
      // Hover opens for a mouse only: a tap on the toggle must not open and close in one go.
      onPointerEnter={(event) => hasChildren && event.pointerType === 'mouse' && setOpen(true)}
      onPointerLeave={(event) => event.pointerType === 'mouse' && setOpen(false)}
      onFocus={(event) => hasChildren && event.target instanceof HTMLAnchorElement && setOpen(true)}
      onBlur={(event) => {
        if (!li.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
      onKeyDown={(event) => {
        // Escape pressed deeper in this item's menu closes it too.
        if (event.key === 'Escape' && open) setOpen(false);
      }}
    >
      <div className="nav-item-row">
        <NavLink
          to={item.to}
          end={item.to === '/'}
          className="nav-link"
          aria-expanded={hasChildren ? open : undefined}
          aria-controls={hasChildren ? submenuId : undefined}
          onKeyDown={onKeyDown}
        >
          <MenuLabel label={item.label} />
        </NavLink>
        {hasChildren && (
          <button
            type="button"
            className="submenu-toggle"
            aria-expanded={open}
            aria-controls={submenuId}
            aria-label={`${item.label} menu`}
            tabIndex={-1}
            onClick={() => setOpen((value) => !value)}
          >
            <span aria-hidden="true">▾</span>
          </button>
        )}
      </div>
      {hasChildren && (
        <ul id={submenuId} className="submenu" hidden={!open}>
          {item.children.map((child) => (
            <MenuEntry key={child.to} item={child} level={level + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}
