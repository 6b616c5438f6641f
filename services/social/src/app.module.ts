import { Module, type DynamicModule } from '@nestjs/common';
import { ServiceCoreModule } from '@blog/server-kit';
import { BlocksController } from './blocks/blocks.controller.js';
import { BlocksRepository, PostgresBlocksRepository } from './blocks/blocks.repository.js';
import { BlocksService } from './blocks/blocks.service.js';
import { SOCIAL_CONFIG, type SocialConfig } from './config.js';
import { DeliveryFailuresController } from './deliveries/delivery-failures.controller.js';
import {
  DeliveryFailuresRepository,
  PostgresDeliveryFailuresRepository,
} from './deliveries/delivery-failures.repository.js';
import { DeliveryFailuresService } from './deliveries/delivery-failures.service.js';
import { FederationController } from './federation/federation.controller.js';
import { FederationDelivery } from './federation/federation-delivery.js';
import { FederationHttpService } from './federation/federation-http.service.js';
import { FederationRef } from './federation/federation-ref.js';
import { FederationRuntime } from './federation/federation-runtime.js';
import {
  OutboundActivitiesRepository,
  PostgresOutboundActivitiesRepository,
} from './federation/outbound-activities.repository.js';
import { MediaClient } from './federation/media-client.js';
import { PostsClient } from './federation/posts-client.js';
import { FollowAccepts } from './followers/follow-accepts.js';
import { FollowersController } from './followers/followers.controller.js';
import { FollowersRepository, PostgresFollowersRepository } from './followers/followers.repository.js';
import { FollowersService } from './followers/followers.service.js';
import { ActorKeysRepository, PostgresActorKeysRepository } from './keys/actor-keys.repository.js';
import { ActorKeysService } from './keys/actor-keys.service.js';
import { KeysController } from './keys/keys.controller.js';
import { InteropController } from './interop/interop.controller.js';
import { InteropRepository, PostgresInteropRepository } from './interop/interop.repository.js';
import { InteropService } from './interop/interop.service.js';
import { NotificationsController } from './notifications/notifications.controller.js';
import {
  NotificationsRepository,
  PostgresNotificationsRepository,
} from './notifications/notifications.repository.js';
import { NotificationsService } from './notifications/notifications.service.js';
import { OwnerFollowingController } from './followers/owner-following.controller.js';
import { OwnerFollowingService } from './followers/owner-following.service.js';
import { RemoteActorsService } from './followers/remote-actors.service.js';
import { PostgresReactionsRepository, ReactionsRepository } from './reactions/reactions.repository.js';
import { ReaderController } from './reader/reader.controller.js';
import { PostgresReaderRepository, ReaderRepository } from './reader/reader.repository.js';
import { ReaderService } from './reader/reader.service.js';
import { ReactionsController } from './reactions/reactions.controller.js';
import { ReactionsService } from './reactions/reactions.service.js';
import { MIGRATIONS } from './migrations/index.js';

/** The blog's followers, remote actors, actor keys, blocks, reactions, the owner's following, Reader and notifications, and its federation. */
@Module({})
export class SocialModule {
  static forRoot(config: SocialConfig): DynamicModule {
    return {
      module: SocialModule,
      imports: [
        ServiceCoreModule.forRoot({
          name: 'social',
          transport: config.TRANSPORT,
          url: config.DATABASE_URL,
          migrationsBy: config.MIGRATIONS_BY,
          entities: [],
          migrations: MIGRATIONS,
        }),
      ],
      controllers: [
        KeysController,
        FollowersController,
        BlocksController,
        ReactionsController,
        FederationController,
        DeliveryFailuresController,
        OwnerFollowingController,
        ReaderController,
        NotificationsController,
        InteropController,
      ],
      providers: [
        { provide: SOCIAL_CONFIG, useValue: config },
        { provide: ActorKeysRepository, useClass: PostgresActorKeysRepository },
        ActorKeysService,
        { provide: FollowersRepository, useClass: PostgresFollowersRepository },
        FollowersService,
        { provide: BlocksRepository, useClass: PostgresBlocksRepository },
        BlocksService,
        { provide: ReactionsRepository, useClass: PostgresReactionsRepository },
        ReactionsService,
        PostsClient,
        MediaClient,
        { provide: OutboundActivitiesRepository, useClass: PostgresOutboundActivitiesRepository },
        FederationDelivery,
        { provide: DeliveryFailuresRepository, useClass: PostgresDeliveryFailuresRepository },
        DeliveryFailuresService,
        FederationRuntime,
        { provide: FollowAccepts, useExisting: FederationRuntime },
        { provide: FederationRef, useExisting: FederationRuntime },
        FederationHttpService,
        RemoteActorsService,
        OwnerFollowingService,
        { provide: ReaderRepository, useClass: PostgresReaderRepository },
        ReaderService,
        { provide: NotificationsRepository, useClass: PostgresNotificationsRepository },
        NotificationsService,
        { provide: InteropRepository, useClass: PostgresInteropRepository },
        InteropService,
      ],
    };
  }
}
