import { Module, type DynamicModule } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AuthController } from './auth/auth.controller.js';
import { AdminGuard, AuthGuard } from './common/auth.guard.js';
import { GATEWAY_CONFIG, type GatewayConfig } from './config.js';
import { HealthController } from './health/health.controller.js';
import { FediverseAdminController } from './fediverse/fediverse-admin.controller.js';
import { FediverseOwnerController } from './fediverse/fediverse-owner.controller.js';
import { FediverseMoveController } from './fediverse/fediverse-move.controller.js';
import { MailAdminController } from './mail/mail-admin.controller.js';
import { NewsletterAdminController } from './mail/newsletter-admin.controller.js';
import { MailController } from './mail/mail.controller.js';
import { ServiceClients } from './rpc/service-clients.js';
import { OptionalAuth } from './common/optional-auth.js';
import { SessionVerifier } from './common/session-verifier.js';
import { PostsController } from './posts/posts.controller.js';
import { PostWriter } from './posts/post-writer.js';
import { SettingsController } from './settings/settings.controller.js';
import { FeedsController } from './feeds/feeds.controller.js';
import { FeedsService } from './feeds/feeds.service.js';
import { NotesAdminController } from './notes/notes-admin.controller.js';
import { NoteWriter } from './notes/note-writer.js';
import { NotesPagesController } from './notes/notes-pages.controller.js';
import { PagesController } from './pages/pages.controller.js';
import { PagesService } from './pages/pages.service.js';
import { SiteConfigSource } from './site/site-config-source.js';
import { SiteAdminController } from './site/site-admin.controller.js';
import { ImportsController } from './backup/imports.controller.js';
import { ExportController } from './backup/export.controller.js';
import { BackupsController } from './backup/backups.controller.js';
import { StatsController } from './stats/stats.controller.js';
import { CommentsController } from './comments/comments.controller.js';
import { VIEW_CLOCK, ViewCounter, type Clock } from './stats/view-counter.js';
import { PUBLIC_CACHE, STORAGE } from './tokens.js';
import { PublicCache } from './common/public-cache.js';
import type { ObjectStorage } from '@blog/server-kit';

@Module({})
export class GatewayModule {
  static forRoot(
    config: GatewayConfig,
    storage?: ObjectStorage,
    cache = new PublicCache(0),
    clock: Clock = () => new Date(),
  ): DynamicModule {
    return {
      module: GatewayModule,
      imports: [JwtModule.register({ secret: config.JWT_SECRET, verifyOptions: { algorithms: ['HS256'] } })],
      controllers: [
        AuthController,
        HealthController,
        PostsController,
        SettingsController,
        MailController,
        MailAdminController,
        NewsletterAdminController,
        FediverseAdminController,
        FediverseOwnerController,
        FediverseMoveController,
        FeedsController,
        SiteAdminController,
        ImportsController,
        ExportController,
        BackupsController,
        StatsController,
        CommentsController,
        NotesAdminController,
        NotesPagesController,
        // Last: its catch-all route answers only what no other route did.
        PagesController,
      ],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: STORAGE, useValue: storage },
        { provide: PUBLIC_CACHE, useValue: cache },
        ServiceClients,
        AuthGuard,
        AdminGuard,
        OptionalAuth,
        SessionVerifier,
        PostWriter,
        NoteWriter,
        SiteConfigSource,
        PagesService,
        FeedsService,
        ViewCounter,
        { provide: VIEW_CLOCK, useValue: clock },
      ],
    };
  }
}
