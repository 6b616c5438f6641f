import { isAdmin } from '@blog/contracts';
import { useNavigate } from 'react-router-dom';
import { Link } from './Link';
import { useSession } from '../session/SessionContext';

/** Greeting, sign-in or sign-out, and the Admin Dashboard link for admins (docs/product.md#header-menu-and-footer-every-page). */
export function TopBar() {
  const { session, logout } = useSession();
  const navigate = useNavigate();

  const onLogout = () => {
    logout();
    navigate('/');
  };

  return (
    <div className="top-bar">
      <div className="top-bar-inner">
        <p className="greeting">
          {session ? `Welcome, ${session.username} (${session.role})` : 'Welcome, Guest'}
        </p>
        <div className="top-bar-actions">
          {session && isAdmin(session.role) && (
            <Link to="/admin" className="top-bar-link">
              Admin Dashboard
            </Link>
          )}
          {session && (
            <Link to="/account" className="top-bar-link">
              Account
            </Link>
          )}
          {session ? (
            <button type="button" className="button button-small" onClick={onLogout}>
              Logout
            </button>
          ) : (
            <Link to="/login" className="top-bar-link">
              Login
            </Link>
          )}
        </div>
      </div>
    </div>
  );
}
