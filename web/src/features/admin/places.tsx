import type { ComponentType } from 'react';
import { listAdminComments } from '../../api/comments';
import { AccountSettings } from '../account';
import { CommentsTab } from './comments/CommentsTab';
import { FediverseTab } from './fediverse/FediverseTab';
import { FollowingTab } from './fediverse/FollowingTab';
import { NotificationsTab } from './fediverse/NotificationsTab';
import { unreadNotifications } from './fediverse/ownerApi';
import { ReaderTab } from './fediverse/ReaderTab';
import { checkRegistry, type PlaceEntry } from './nav/placeRules';
import { NotesTab } from './notes/NotesTab';
import { PostsTab } from './posts/PostsTab';
import { BackupTab } from './tabs/BackupTab';
import { MessagesTab } from './tabs/MailTabs';
import { SettingsTab } from './tabs/SettingsTab';
import { SiteTab } from './tabs/SiteTab';
import { StatsTab } from './tabs/StatsTab';
import { SubscribersTab } from './tabs/SubscribersTab';
import { UsersTab } from './tabs/UsersTab';

/** What the dashboard hands every place; most ignore it. */
export interface PlaceProps {
  /** The header's New Post button asks the Posts place to open its form. */
  creating: boolean;
  onCreatingChange: (creating: boolean) => void;
}

export interface AdminPlace extends PlaceEntry {
  component: ComponentType<PlaceProps>;
}

/**
 * Every place of the Admin Dashboard, one line each: its `?tab=` id (kept for good once links
 * to it exist), its name in the navigation, its group, the component it shows and, optionally,
 * a badge count. The navigation, the URL and the page follow from this list alone; a group's
 * places show in the order they have here.
 */
export const PLACES: readonly AdminPlace[] = [
  { id: 'posts', label: 'Posts', group: 'content', component: PostsTab },
  { id: 'notes', label: 'Notes', group: 'content', component: NotesTab },
  {
    id: 'comments',
    label: 'Comments',
    group: 'content',
    component: CommentsTab,
    badge: {
      load: async (api, signal) =>
        (await listAdminComments(api, { status: 'pending', page: 1 }, signal)).counts.pending,
      describe: (n) => `${n} pending`,
    },
  },
  { id: 'reader', label: 'Reader', group: 'fediverse', component: ReaderTab },
  {
    id: 'notifications',
    label: 'Notifications',
    group: 'fediverse',
    component: NotificationsTab,
    badge: { load: (api, signal) => unreadNotifications(api, signal), describe: (n) => `${n} unread` },
  },
  { id: 'following', label: 'Following', group: 'fediverse', component: FollowingTab },
  { id: 'fediverse', label: 'Followers', group: 'fediverse', component: FediverseTab },
  { id: 'subscribers', label: 'Subscribers', group: 'audience', component: SubscribersTab },
  { id: 'messages', label: 'Messages', group: 'audience', component: MessagesTab },
  { id: 'site', label: 'Site', group: 'site', component: SiteTab },
  { id: 'settings', label: 'Settings', group: 'site', component: SettingsTab },
  { id: 'users', label: 'Users', group: 'site', component: UsersTab },
  { id: 'backup', label: 'Backup', group: 'site', component: BackupTab },
  { id: 'stats', label: 'Stats', group: 'stats', component: StatsTab },
  { id: 'account', label: 'Account', group: 'account', component: AccountSettings },
];

checkRegistry(PLACES);
