import { readTokenExpiry } from '@blog/contracts/token';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useApi } from '../../api/ApiContext';
import { listUsers } from '../../api/auth';
import { useSession } from '../../session/SessionContext';
import './admin.css';
import { BackupWarning } from './tabs/BackupWarning';
import { DigestAction } from './tabs/DigestAction';
import { useLeaveWarning } from './form/useLeaveWarning';
import { AdminNav } from './nav/AdminNav';
import { BadgeRefreshProvider, useBadgeCounts } from './nav/badges';
import { HOME_PLACE, placeFromParams, placeHref } from './nav/placeRules';
import { PLACES } from './places';
import { NotificationProvider } from './ui/Notifications';
import { UploadFlagContext } from './ui/UploadFlag';

/**
 * The Admin Dashboard (docs/product.md#screens): the navigation of its places (places.tsx) and
 * the open one. The place and its filters live in the URL, so reload and the back button keep
 * them. Guarded by RequireAdmin; signs out when the token expires.
 */
export function AdminPage() {
  const { session } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const place = placeFromParams(PLACES, params);
  const [creating, setCreating] = useState(false);
  const [uploading, setUploading] = useState(false);
  const [counts, refreshBadges] = useBadgeCounts(PLACES, place.id);
  const panelRef = useRef<HTMLDivElement>(null);
  useSignOutAtExpiry();
  useServerSessionCheck();
  useLeaveWarning(uploading);

  const Place = place.component;
  return (
    <NotificationProvider>
      <UploadFlagContext.Provider value={setUploading}>
        <BadgeRefreshProvider value={refreshBadges}>
          <div className="admin">
            <header className="page-header admin-header">
              <div>
                <h1>Admin Dashboard</h1>
                <p>Welcome, {session?.username}</p>
              </div>
              <div className="admin-header-actions">
                <button
                  type="button"
                  className="button"
                  onClick={() => {
                    if (place.id !== HOME_PLACE) void navigate(placeHref(HOME_PLACE));
                    setCreating(true);
                  }}
                >
                  New Post
                </button>
                <DigestAction />
              </div>
            </header>
            <div className="admin-layout">
              <AdminNav
                places={PLACES}
                current={place}
                counts={counts}
                onChosenFromMenu={() => panelRef.current?.focus()}
              />
              {/* The phone's menu hands the focus here after a choice: a screen reader goes on with the place. */}
              <div ref={panelRef} className="admin-panel" tabIndex={-1}>
                {/* The front page says when the backups need a look (the server's rule). */}
                {place.id === HOME_PLACE && <BackupWarning />}
                <Place key={place.id} creating={creating} onCreatingChange={setCreating} />
              </div>
            </div>
          </div>
        </BadgeRefreshProvider>
      </UploadFlagContext.Provider>
    </NotificationProvider>
  );
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** docs/product.md#how-the-screens-behave: the admin area reads the token's expiry; once past it the session goes (RequireAdmin then sends to /login). */
function useSignOutAtExpiry() {
  const { session, logout } = useSession();
  const token = session?.token;
  useEffect(() => {
    const exp = readTokenExpiry(token);
    if (exp === null) return logout();
    const ms = exp * 1000 - Date.now();
    if (ms <= 0) return logout();
    // setTimeout holds at most ~24.8 days; RequireAdmin checks such a long token on each render.
    if (ms > MAX_TIMER_MS) return;
    const timer = setTimeout(logout, ms);
    return () => clearTimeout(timer);
  }, [token, logout]);
}

/**
 * The post list is public (a refused token just reads as a guest), so the dashboard asks an
 * admin-only call once on entry: a token the server refuses (401/403) then signs out and
 * goes to /login through the API client's rule (docs/product.md#how-the-screens-behave).
 */
function useServerSessionCheck() {
  const api = useApi();
  useEffect(() => {
    const controller = new AbortController();
    listUsers(api, controller.signal).catch(() => undefined);
    return () => controller.abort();
  }, [api]);
}
