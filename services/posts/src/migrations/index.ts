import { CreatePosts1763810000000 } from './1763810000000-CreatePosts.js';
import { SlugPrefixIndex1763820000000 } from './1763820000000-SlugPrefixIndex.js';
import { MediaProcessing1763830000000 } from './1763830000000-MediaProcessing.js';
import { TypoSearchWords1763840000000 } from './1763840000000-TypoSearchWords.js';
import { MediaAttempts1764000000000 } from './1764000000000-MediaAttempts.js';
import { PostContent1764200000000 } from './1764200000000-PostContent.js';
import { VisiblePostsIndex1764250000000 } from './1764250000000-VisiblePostsIndex.js';
import { IdempotencyKeys1764300000000, RateWindows1764800000000 } from '@blog/server-kit';
import { SiteSettings1764400000000 } from './1764400000000-SiteSettings.js';
import { ImportSources1764600000000 } from './1764600000000-ImportSources.js';
import { PageViews1764700000000 } from './1764700000000-PageViews.js';
import { BlogIdentity1764850000000 } from './1764850000000-BlogIdentity.js';
import { ImportAttempts1764810000000 } from './1764810000000-ImportAttempts.js';
import { StatsAggregatesOnly1764830000000 } from './1764830000000-StatsAggregatesOnly.js';
import { UsedExportLinks1764870000000 } from './1764870000000-UsedExportLinks.js';
import { ExportJobs1764880000000 } from './1764880000000-ExportJobs.js';
import { Comments1764900000000 } from './1764900000000-Comments.js';
import { FederationEvents1765110000000 } from './1765110000000-FederationEvents.js';
import { CommentPendingChanges1765310000000 } from './1765310000000-CommentPendingChanges.js';
import { CommentHttpLinks1765320000000 } from './1765320000000-CommentHttpLinks.js';
import { NewsletterEvents1765400000000 } from './1765400000000-NewsletterEvents.js';
import { Notes1765700000000 } from './1765700000000-Notes.js';
import { OwnerReplyTombstones1765710000000 } from './1765710000000-OwnerReplyTombstones.js';
import { NotePictures1765720000000 } from './1765720000000-NotePictures.js';
import { BackupRuns1765800000000 } from './1765800000000-BackupRuns.js';
import { NoteSources1765910000000 } from './1765910000000-NoteSources.js';

/** The posts schema's migrations in the order they run: the service at start, a restore up to a backup's. */
export const MIGRATIONS = [
  CreatePosts1763810000000,
  SlugPrefixIndex1763820000000,
  MediaProcessing1763830000000,
  TypoSearchWords1763840000000,
  MediaAttempts1764000000000,
  PostContent1764200000000,
  VisiblePostsIndex1764250000000,
  IdempotencyKeys1764300000000,
  SiteSettings1764400000000,
  ImportSources1764600000000,
  PageViews1764700000000,
  BlogIdentity1764850000000,
  ImportAttempts1764810000000,
  StatsAggregatesOnly1764830000000,
  UsedExportLinks1764870000000,
  ExportJobs1764880000000,
  // The comments' per-account and per-address limits (the shared fixed windows).
  RateWindows1764800000000,
  Comments1764900000000,
  FederationEvents1765110000000,
  CommentPendingChanges1765310000000,
  CommentHttpLinks1765320000000,
  NewsletterEvents1765400000000,
  Notes1765700000000,
  OwnerReplyTombstones1765710000000,
  NotePictures1765720000000,
  BackupRuns1765800000000,
  NoteSources1765910000000,
];
