import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  createBlogFederation,
  FEDIFY_INBOX_QUEUE,
  FEDIFY_OUTBOX_QUEUE,
  PgKvStore,
  PgMessageQueue,
  type BlogFederation,
} from '@blog/federation';
import { JsonLogger, TakingTurns } from '@blog/server-kit';
import pg from 'pg';
import { SOCIAL_CONFIG, type SocialConfig } from '../config.js';
import { DeliveryFailuresService } from '../deliveries/delivery-failures.service.js';
import { FollowAccepts } from '../followers/follow-accepts.js';
import { blogPorts } from './blog-ports.js';
import { runWithPolicyFetch } from './delivery-fetch.js';
import { routeFedifyLogs } from './fedify-logs.js';
import { FederationDelivery } from './federation-delivery.js';
import { InboxRefusalLog } from './inbox-refusals.js';
import { MediaClient } from './media-client.js';
import { PostsClient } from './posts-client.js';

/** The schema the social service's tables (and Fedify's store and queue) live in. */
const SCHEMA = 'social';
/** Connections for the requests this process serves (KV reads, enqueues, the delivery poller). */
const REQUEST_CONNECTIONS = 2;
/**
 * Each queue holds its LISTEN connection and one for its claims; each of its workers one at a time
 * (KV, enqueues, the delete of its message); the requests beside them.
 */
export const federationPoolSize = (
  config: Pick<SocialConfig, 'FEDERATION_INBOX_WORKERS' | 'FEDERATION_OUTBOX_WORKERS'>,
) => 2 * 2 + config.FEDERATION_INBOX_WORKERS + config.FEDERATION_OUTBOX_WORKERS + REQUEST_CONNECTIONS;
/**
 * Inbox POSTs verified and queued at once (FEDERATION_INBOX_AT_ONCE); more wait their turn, at
 * most this many, for at most this long (under the gateway's RPC wait), then hear 503. Taken in
 * faster than the queue is worked, they would only lengthen the queue, and under `npm start`
 * a process busy with nothing else makes its visitors wait.
 */
const INBOX_MAX_WAITING = 64;
const INBOX_MAX_WAIT_MS = 3000;

/** How long shutdown waits for the queue workers' messages in hand. */
const WORKER_STOP_MS = 5_000;

/**
 * The one federation of the blog: Fedify on this service's database (its KV store and two
 * message queues: inbox work and outbound delivery, each with its workers and a fair share per
 * remote server), started with the service and stopped before the pool closes (G4). The gateway
 * hands it the federation's HTTP requests over RPC.
 */
@Injectable()
export class FederationRuntime
  extends FollowAccepts
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger: JsonLogger;
  private readonly stopping = new AbortController();
  private readonly refusals: InboxRefusalLog;
  private pool?: pg.Pool;
  private worker?: Promise<void>;
  private started?: BlogFederation;
  private queues_?: { inbox: PgMessageQueue; outbox: PgMessageQueue };

  constructor(
    @Inject(SOCIAL_CONFIG) private readonly config: SocialConfig,
    private readonly moduleRef: ModuleRef,
    private readonly posts: PostsClient,
    private readonly media: MediaClient,
    private readonly delivery: FederationDelivery,
    private readonly deliveryFailures: DeliveryFailuresService,
  ) {
    super();
    this.logger = new JsonLogger('social', config.LOG_LEVEL);
    this.refusals = new InboxRefusalLog(this.logger);
  }

  /** The federation; there from the service's start on (bootstrap runs before it listens). */
  get blog(): BlogFederation {
    if (!this.started) throw new Error('the federation has not started');
    return this.started;
  }

  /** The inbox and outbox queues, as configured. */
  get queues(): { inbox: PgMessageQueue; outbox: PgMessageQueue } {
    if (!this.queues_) throw new Error('the federation has not started');
    return this.queues_;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { config } = this;
    await routeFedifyLogs(this.logger, config.FEDERATION_LOG_LEVEL);
    this.pool = new pg.Pool({
      connectionString: config.DATABASE_URL,
      max: federationPoolSize(config),
      options: `-c search_path=${SCHEMA}`,
    });
    this.pool.on('error', (error) => this.logger.event('warn', 'federation pool', { error: error.message }));
    const onError = (error: Error) => this.logger.event('warn', 'federation queue', { error: error.message });
    const inbox = new PgMessageQueue(this.pool, {
      name: FEDIFY_INBOX_QUEUE,
      workers: config.FEDERATION_INBOX_WORKERS,
      onError,
    });
    const outbox = new PgMessageQueue(this.pool, {
      name: FEDIFY_OUTBOX_QUEUE,
      workers: config.FEDERATION_OUTBOX_WORKERS,
      onError,
    });
    this.queues_ = { inbox, outbox };
    this.started = createBlogFederation({
      ports: blogPorts(this.moduleRef, { posts: this.posts, media: this.media }, config.SITE_URL),
      origin: config.SITE_URL,
      kv: new PgKvStore(this.pool),
      queue: { inbox, outbox, fanout: outbox },
      allow: config.OUTBOUND_ALLOW,
      manuallyStartQueue: true,
      // Logged, and kept per server for the owner's Fediverse tab.
      onDeliveryGivenUp: async (report) => {
        this.logger.event('warn', 'federation delivery given up', { ...report });
        await this.deliveryFailures
          .givenUp(report)
          .catch((error: unknown) =>
            this.logger.event('error', 'delivery failure not kept', { error: (error as Error).message }),
          );
      },
      onDelivered: (inbox) =>
        this.deliveryFailures
          .delivered(inbox)
          .catch((error: unknown) =>
            this.logger.event('warn', 'delivery failure not cleared', { error: (error as Error).message }),
          ),
      onInboxError: (error, activityId) =>
        this.logger.event('warn', 'federation inbox activity failed', { error: error.message, activityId }),
      onInboxRefused: (reason) => this.refusals.refused(reason),
      inboxTurns: new TakingTurns(config.FEDERATION_INBOX_AT_ONCE, INBOX_MAX_WAITING, INBOX_MAX_WAIT_MS),
    });
    const blog = this.started;
    // The workers and the delivery poller run in the policy's scope: their deliveries obey it.
    runWithPolicyFetch(config.OUTBOUND_ALLOW, {}, () => {
      this.worker = blog.federation
        .startQueue(undefined, { signal: this.stopping.signal })
        .catch((error: unknown) =>
          this.logger.event('error', 'federation queue workers stopped', { error: (error as Error).message }),
        );
      this.delivery.start(blog);
    });
  }

  send(follower: { actorUri: string; inbox: string; sharedInbox: string | null }, followActivityId: string) {
    return this.blog.acceptFollow(follower, followActivityId);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    this.refusals.flush();
    if (this.worker) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.worker,
        new Promise((resolve) => (timer = setTimeout(resolve, WORKER_STOP_MS))),
      ]);
      clearTimeout(timer);
    }
    await this.pool?.end().catch(() => undefined);
  }
}
