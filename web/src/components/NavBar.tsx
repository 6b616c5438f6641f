import { NavLink } from 'react-router-dom';

interface NavItem {
  label: string;
  to: string;
}

/** Top-level navigation; category dropdowns and the mobile toggle are added by a later issue. */
const items: NavItem[] = [
  { label: 'Home', to: '/' },
  { label: 'About', to: '/about' },
];

export function NavBar() {
  return (
    <nav className="nav-bar" aria-label="Main">
      <ul className="nav-list">
        {items.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end={item.to === '/'} className="nav-link">
              {item.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
