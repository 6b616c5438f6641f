import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServiceCoreModule } from '@blog/server-kit';
import { BackgroundTasks } from './common/background-tasks.js';
import { FormLimits } from './common/form-limits.js';
import { MailSweeper } from './common/mail-sweeper.js';
import { MAIL_CONFIG, type MailConfig } from './config.js';
import { ContactMessage } from './contact/contact-message.entity.js';
import { ContactController } from './contact/contact.controller.js';
import { ContactRepository, PostgresContactRepository } from './contact/contact.repository.js';
import { ContactService } from './contact/contact.service.js';
import { DigestController } from './digest/digest.controller.js';
import { DigestScheduler } from './digest/digest.scheduler.js';
import { DigestService } from './digest/digest.service.js';
import { DigestCalendar } from './digest/digest-calendar.js';
import { DigestRepository, PostgresDigestRepository } from './digest/digest.repository.js';
import { PostsClient } from './digest/posts-client.js';
import { NewsletterController } from './newsletter/newsletter.controller.js';
import { NewsletterRepository } from './newsletter/newsletter.repository.js';
import { NewsletterService } from './newsletter/newsletter.service.js';
import { Subscriber } from './subscriptions/subscriber.entity.js';
import { SubscriptionsController } from './subscriptions/subscriptions.controller.js';
import {
  PostgresSubscriptionsRepository,
  SubscriptionsRepository,
} from './subscriptions/subscriptions.repository.js';
import { SubscriptionsService } from './subscriptions/subscriptions.service.js';
import { PreferencesLinks } from './subscriptions/preferences-links.js';
import { PreferencesRepository } from './subscriptions/preferences.repository.js';
import { PreferencesService } from './subscriptions/preferences.service.js';
import { SubscriberAdminController } from './subscriptions/subscriber-admin.controller.js';
import { SubscriberImportService } from './subscriptions/subscriber-import.service.js';
import { SubscriberListRepository } from './subscriptions/subscriber-list.repository.js';
import { SITE_TITLE } from './tokens.js';
import { SiteTitle } from './common/site-title.js';
import { CommentNoticeController } from './comments/comment-notice.controller.js';
import { BackupWarningController } from './backups/backup-warning.controller.js';
import { MailTransport } from './transport/mail-transport.js';
import { MIGRATIONS } from './migrations/index.js';

/** Contact messages, double opt-in subscriptions, the weekly digest and every post by e-mail. */
@Module({})
export class MailModule {
  static forRoot(config: MailConfig, deps: { siteTitle: string }): DynamicModule {
    return {
      module: MailModule,
      imports: [
        ServiceCoreModule.forRoot({
          name: 'mail',
          transport: config.TRANSPORT,
          url: config.DATABASE_URL,
          migrationsBy: config.MIGRATIONS_BY,
          entities: [ContactMessage, Subscriber],
          migrations: MIGRATIONS,
        }),
        TypeOrmModule.forFeature([ContactMessage, Subscriber]),
      ],
      controllers: [
        ContactController,
        SubscriptionsController,
        SubscriberAdminController,
        DigestController,
        CommentNoticeController,
        BackupWarningController,
        NewsletterController,
      ],
      providers: [
        { provide: MAIL_CONFIG, useValue: config },
        { provide: SITE_TITLE, useValue: deps.siteTitle },
        {
          provide: DigestCalendar,
          useValue: new DigestCalendar(config.DIGEST_CRON, config.SITE_TIMEZONE),
        },
        MailTransport,
        SiteTitle,
        BackgroundTasks,
        FormLimits,
        { provide: ContactRepository, useClass: PostgresContactRepository },
        ContactService,
        { provide: SubscriptionsRepository, useClass: PostgresSubscriptionsRepository },
        SubscriptionsService,
        PreferencesRepository,
        PreferencesLinks,
        PreferencesService,
        SubscriberListRepository,
        SubscriberImportService,
        PostsClient,
        { provide: DigestRepository, useClass: PostgresDigestRepository },
        DigestService,
        DigestScheduler,
        NewsletterRepository,
        NewsletterService,
        MailSweeper,
      ],
    };
  }
}
