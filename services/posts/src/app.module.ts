import { Module, type DynamicModule } from '@nestjs/common';
import type { SiteConfig } from '@blog/contracts';
import { resolveBinaries, ServiceCoreModule, type ObjectStorage } from '@blog/server-kit';
import type { PostsConfig } from './config.js';
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
import { MailClient } from './archive/mail-client.js';
import { MediaClient } from './import/media-client.js';
import { BlogIdentity } from './import/blog-identity.js';
import { MemoryVisitorStore, RedisVisitorStore } from './stats/visitor-store.js';
import { CommentsController } from './comments/comments.controller.js';
import { CommentNotifier, CommentsService } from './comments/comments.service.js';
import { CommentsRepository } from './comments/comments.repository.js';
import { FederationController } from './federation/federation.controller.js';
import { ArticlesRepository } from './federation/articles.repository.js';
import { ArticlesService } from './federation/articles.service.js';
import { FederationEvents } from './federation/federation-events.js';
import { FederationEventsRepository } from './federation/federation-events.repository.js';
import { NewsletterController } from './newsletter/newsletter.controller.js';
import { NewsletterEventsRepository } from './newsletter/newsletter-events.repository.js';
import { NewsletterRepository } from './newsletter/newsletter.repository.js';
import { NewsletterService } from './newsletter/newsletter.service.js';
import { NotesController } from './notes/notes.controller.js';
import { NotesRepository } from './notes/notes.repository.js';
import { NotesService } from './notes/notes.service.js';
import { OwnerReplies } from './notes/owner-replies.js';
import { OwnerRepliesRepository } from './notes/owner-replies.repository.js';
import { MIGRATIONS } from './migrations/index.js';
import { BackupJobs } from './backups/backup-jobs.js';
import { BackupRunsRepository, PostgresBackupRunsRepository } from './backups/backup-runs.repository.js';
import { BackupsController } from './backups/backups.controller.js';

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
          migrationsBy: config.MIGRATIONS_BY,
          entities: [Post, MediaItem],
          migrations: MIGRATIONS,
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
        BackupsController,
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
        BackupJobs,
        { provide: BackupRunsRepository, useClass: PostgresBackupRunsRepository },
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
