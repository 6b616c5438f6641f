import { readTokenExpiry } from '@blog/contracts/token';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useApi } from '../../api/ApiContext';
import { listUsers } from '../../api/auth';
import { useSession } from '../../session/SessionContext';
import './admin.css';
import { BackupTab } from './tabs/BackupTab';
import { DigestAction } from './tabs/DigestAction';
import { MessagesTab } from './tabs/MailTabs';
import { SubscribersTab } from './tabs/SubscribersTab';
import { SettingsTab } from './tabs/SettingsTab';
import { SiteTab } from './tabs/SiteTab';
import { StatsTab } from './tabs/StatsTab';
import { AccountSettings } from '../account';
import { UsersTab } from './tabs/UsersTab';
import { PostsTab } from './posts/PostsTab';
import { CommentsTab } from './comments/CommentsTab';
import { FediverseTab } from './fediverse/FediverseTab';
import { useLeaveWarning } from './form/useLeaveWarning';
import { NotificationProvider } from './ui/Notifications';
import { UploadFlagContext } from './ui/UploadFlag';

const TABS = [
  { id: 'posts', label: 'Posts' },
  { id: 'comments', label: 'Comments' },
  { id: 'fediverse', label: 'Fediverse' },
  { id: 'site', label: 'Site' },
  { id: 'stats', label: 'Stats' },
  { id: 'users', label: 'Users' },
  { id: 'settings', label: 'Settings' },
  { id: 'messages', label: 'Messages' },
  { id: 'subscribers', label: 'Subscribers' },
  { id: 'backup', label: 'Backup' },
  { id: 'account', label: 'Account' },
] as const;
type TabId = (typeof TABS)[number]['id'];

const isTab = (value: string | null): value is TabId => TABS.some((t) => t.id === value);

/**
 * The Admin Dashboard (docs/product.md#screens): the open tab and its filters live in the URL, so reload
 * and the back button keep them. Guarded by RequireAdmin; signs out when the token expires.
 */
export function AdminPage() {
  const { session } = useSession();
  const [params, setParams] = useSearchParams();
  const tab: TabId = isTab(params.get('tab')) ? (params.get('tab') as TabId) : 'posts';
  const [creating, setCreating] = useState(false);
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});
  const [uploading, setUploading] = useState(false);
  useSignOutAtExpiry();
  useServerSessionCheck();
  useLeaveWarning(uploading);

  // A row wider than the screen scrolls: bring the open tab into it (a phone, a link to ?tab=backup),
  // with a bit of its neighbour showing, so the row reads as one that scrolls.
  useEffect(() => {
    const button = tabRefs.current[tab];
    const row = button?.parentElement;
    if (!button || !row) return;
    const frame = requestAnimationFrame(() => {
      const outer = row.getBoundingClientRect();
      const inner = button.getBoundingClientRect();
      const margin = 24;
      if (inner.left < outer.left) row.scrollLeft -= outer.left - inner.left + margin;
      else if (inner.right > outer.right) row.scrollLeft += inner.right - outer.right + margin;
    });
    return () => cancelAnimationFrame(frame);
  }, [tab]);

  const openTab = (id: TabId) => setParams(id === 'posts' ? {} : { tab: id });
  const onTabKey = (event: KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    // The arrow's own default would scroll the (scrolling) row back by a notch.
    event.preventDefault();
    const next = TABS[(index + step + TABS.length) % TABS.length]!;
    openTab(next.id);
    tabRefs.current[next.id]?.focus();
  };

  return (
    <NotificationProvider>
      <UploadFlagContext.Provider value={setUploading}>
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
                  if (tab !== 'posts') openTab('posts');
                  setCreating(true);
                }}
              >
                New Post
              </button>
              <DigestAction />
            </div>
          </header>
          <div role="tablist" aria-label="Admin sections" className="admin-tabs">
            {TABS.map((t, index) => (
              <button
                key={t.id}
                ref={(el) => {
                  tabRefs.current[t.id] = el;
                }}
                type="button"
                role="tab"
                id={`tab-${t.id}`}
                aria-selected={tab === t.id}
                aria-controls={`panel-${t.id}`}
                tabIndex={tab === t.id ? 0 : -1}
                className={tab === t.id ? 'admin-tab active' : 'admin-tab'}
                onClick={() => openTab(t.id)}
                onKeyDown={(event) => onTabKey(event, index)}
              >
                {t.label}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="admin-panel">
            {tab === 'posts' && <PostsTab creating={creating} onCreatingChange={setCreating} />}
            {tab === 'comments' && <CommentsTab />}
            {tab === 'fediverse' && <FediverseTab />}
            {tab === 'site' && <SiteTab />}
            {tab === 'users' && <UsersTab />}
            {tab === 'settings' && <SettingsTab />}
            {tab === 'messages' && <MessagesTab />}
            {tab === 'subscribers' && <SubscribersTab />}
            {tab === 'stats' && <StatsTab />}
            {tab === 'backup' && <BackupTab />}
            {tab === 'account' && <AccountSettings />}
          </div>
        </div>
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
