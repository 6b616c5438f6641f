import { Module, type DynamicModule } from '@nestjs/common';
import type { SiteConfig } from '@blog/contracts';
import {
  IdempotencyKeys1764300000000,
  RateWindows1764800000000,
  resolveBinaries,
  ServiceCoreModule,
  type ObjectStorage,
} from '@blog/server-kit';
import type { PostsConfig } from './config.js';
import { CreatePosts1763810000000 } from './migrations/1763810000000-CreatePosts.js';
import { SlugPrefixIndex1763820000000 } from './migrations/1763820000000-SlugPrefixIndex.js';
import { MediaProcessing1763830000000 } from './migrations/1763830000000-MediaProcessing.js';
import { TypoSearchWords1763840000000 } from './migrations/1763840000000-TypoSearchWords.js';
import { MediaAttempts1764000000000 } from './migrations/1764000000000-MediaAttempts.js';
import { PostContent1764200000000 } from './migrations/1764200000000-PostContent.js';
import { VisiblePostsIndex1764250000000 } from './migrations/1764250000000-VisiblePostsIndex.js';
import { MediaItem } from './posts/media-item.entity.js';
import { Post } from './posts/post.entity.js';
import { PostsController } from './posts/posts.controller.js';
import { PostsService } from './posts/posts.service.js';
import { ContentService } from './content/content.service.js';
import { MediaItemsService } from './media-items/media-items.service.js';
import { PostSearchRepository } from './search/post-search.repository.js';
import { SiteController } from './site/site.controller.js';
import { POSTS_CONFIG, SEED_SITE_CONFIG, STORAGE, VISITOR_STORE } from './tokens.js';
import { SiteSettings } from './site/site-settings.js';
import { PostgresSiteSettingsRepository, SiteSettingsRepository } from './site/site-settings.repository.js';
import { ImportController } from './import/import.controller.js';
import { StatsController } from './stats/stats.controller.js';
import { StatsService } from './stats/stats.service.js';
import { PostgresStatsRepository, StatsRepository } from './stats/stats.repository.js';
import { ImportRunner } from './import/import-runner.js';
import { ImportsRepository, PostgresImportsRepository } from './import/imports.repository.js';
import { ImportedPostWriter } from './import/post-writer.js';
import { PostgresPostsRepository, PostsRepository } from './posts/posts.repository.js';
import { MediaItemsRepository, PostgresMediaItemsRepository } from './media-items/media-items.repository.js';
import { ArchiveRestore } from './archive/archive-restore.js';
import { ArchiveWriter } from './archive/archive-writer.js';
import { AuthClient } from './archive/auth-client.js';
import { SocialClient } from './archive/social-client.js';
import { ExportController } from './archive/export.controller.js';
import { ExportJobs } from './archive/export-jobs.js';
import { ExportsRepository, PostgresExportsRepository } from './archive/exports.repository.js';
import { LocationStripper } from './archive/strip-location.js';
import { ExportJobs1764880000000 } from './migrations/1764880000000-ExportJobs.js';
import { MailClient } from './archive/mail-client.js';
import { MediaClient } from './import/media-client.js';
import { SiteSettings1764400000000 } from './migrations/1764400000000-SiteSettings.js';
import { ImportSources1764600000000 } from './migrations/1764600000000-ImportSources.js';
import { PageViews1764700000000 } from './migrations/1764700000000-PageViews.js';
import { BlogIdentity1764850000000 } from './migrations/1764850000000-BlogIdentity.js';
import { BlogIdentity } from './import/blog-identity.js';
import { UsedExportLinks1764870000000 } from './migrations/1764870000000-UsedExportLinks.js';
import { StatsAggregatesOnly1764830000000 } from './migrations/1764830000000-StatsAggregatesOnly.js';
import { MemoryVisitorStore, RedisVisitorStore } from './stats/visitor-store.js';
import { ImportAttempts1764810000000 } from './migrations/1764810000000-ImportAttempts.js';
import { Comments1764900000000 } from './migrations/1764900000000-Comments.js';
import { CommentsController } from './comments/comments.controller.js';
import { CommentNotifier, CommentsService } from './comments/comments.service.js';
import { CommentsRepository } from './comments/comments.repository.js';
import { FederationEvents1765110000000 } from './migrations/1765110000000-FederationEvents.js';
import { CommentPendingChanges1765310000000 } from './migrations/1765310000000-CommentPendingChanges.js';
import { CommentHttpLinks1765320000000 } from './migrations/1765320000000-CommentHttpLinks.js';
import { FederationController } from './federation/federation.controller.js';
import { ArticlesRepository } from './federation/articles.repository.js';
import { ArticlesService } from './federation/articles.service.js';
import { FederationEvents } from './federation/federation-events.js';
import { FederationEventsRepository } from './federation/federation-events.repository.js';
import { NewsletterEvents1765400000000 } from './migrations/1765400000000-NewsletterEvents.js';
import { NewsletterController } from './newsletter/newsletter.controller.js';
import { NewsletterEventsRepository } from './newsletter/newsletter-events.repository.js';
import { NewsletterRepository } from './newsletter/newsletter.repository.js';
import { NewsletterService } from './newsletter/newsletter.service.js';
import { Notes1765700000000 } from './migrations/1765700000000-Notes.js';
import { OwnerReplyTombstones1765710000000 } from './migrations/1765710000000-OwnerReplyTombstones.js';
import { NotePictures1765720000000 } from './migrations/1765720000000-NotePictures.js';
import { NotesController } from './notes/notes.controller.js';
import { NotesRepository } from './notes/notes.repository.js';
import { NotesService } from './notes/notes.service.js';
import { OwnerReplies } from './notes/owner-replies.js';
import { OwnerRepliesRepository } from './notes/owner-replies.repository.js';

/** In the order they run (a test runs those before PostContent on old data, then the rest). */
export const POSTS_MIGRATIONS = [
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
];

/** Posts, their ordered media, slugs, the category tree, filtering, pagination and search. */
@Module({})
export class PostsModule {
  static forRoot(config: PostsConfig, deps: { site: SiteConfig; storage: ObjectStorage }): DynamicModule {
    return {
      module: PostsModule,
      imports: [
        ServiceCoreModule.forRoot({
          name: 'posts',
          transport: config.TRANSPORT,
          url: config.DATABASE_URL,
          entities: [Post, MediaItem],
          migrations: POSTS_MIGRATIONS,
        }),
      ],
      controllers: [
        PostsController,
        SiteController,
        ImportController,
        ExportController,
        StatsController,
        CommentsController,
        FederationController,
        NewsletterController,
        NotesController,
      ],
      providers: [
        { provide: SEED_SITE_CONFIG, useValue: deps.site },
        { provide: POSTS_CONFIG, useValue: config },
        { provide: SiteSettingsRepository, useClass: PostgresSiteSettingsRepository },
        SiteSettings,
        { provide: STORAGE, useValue: deps.storage },
        PostsService,
        PostSearchRepository,
        ContentService,
        MediaItemsService,
        { provide: MediaItemsRepository, useClass: PostgresMediaItemsRepository },
        MediaClient,
        MailClient,
        ImportRunner,
        { provide: ImportsRepository, useClass: PostgresImportsRepository },
        ImportedPostWriter,
        { provide: PostsRepository, useClass: PostgresPostsRepository },
        ArchiveRestore,
        AuthClient,
        SocialClient,
        ArchiveWriter,
        ExportJobs,
        { provide: ExportsRepository, useClass: PostgresExportsRepository },
        { provide: LocationStripper, useFactory: () => new LocationStripper(resolveBinaries().ffmpeg) },
        BlogIdentity,
        { provide: StatsRepository, useClass: PostgresStatsRepository },
        StatsService,
        CommentsRepository,
        CommentsService,
        { provide: CommentNotifier, useExisting: MailClient },
        ArticlesRepository,
        ArticlesService,
        FederationEventsRepository,
        FederationEvents,
        NewsletterEventsRepository,
        NewsletterRepository,
        NewsletterService,
        NotesRepository,
        NotesService,
        OwnerRepliesRepository,
        OwnerReplies,
        {
          provide: VISITOR_STORE,
          // Shared by the replicas through Redis; one process keeps them in memory.
          useFactory: () =>
            config.REDIS_URL ? new RedisVisitorStore(config.REDIS_URL) : new MemoryVisitorStore(),
        },
      ],
    };
  }
}
