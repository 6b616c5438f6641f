import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  parseSiteConfig,
  reservedSegments,
  SiteConfigError,
  type IdempotencyRequest,
  type IdempotentAnswer,
  type SiteConfig,
} from '@blog/contracts';
import { IdempotencyLedger, RpcError } from '@blog/server-kit';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostsConfig } from '../config.js';
import { POSTS_CONFIG, SEED_SITE_CONFIG } from '../tokens.js';

interface Row {
  config: SiteConfig;
  version: number;
}

/**
 * The site configuration (texts, banner, registration, category tree), kept in the database.
 * Each replica holds the current one in memory and checks its version every SITE_REFRESH_MS,
 * so a change made on one replica reaches the others within that time, with no restart.
 */
@Injectable()
export class SiteSettings implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SiteSettings.name);
  private site!: SiteConfig;
  private reserved!: Set<string>;
  private version = 0;
  private poll?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(SEED_SITE_CONFIG) private readonly seed: SiteConfig,
    @Inject(POSTS_CONFIG) private readonly config: PostsConfig,
    private readonly ledger: IdempotencyLedger,
  ) {}

  /** Seeds the row from the file on the very first start (a later start leaves it alone), then loads it. */
  async onModuleInit(): Promise<void> {
    await this.db.query(
      `INSERT INTO posts.site_settings (id, config, version) VALUES (1, $1, 1) ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(this.seed)],
    );
    await this.refresh();
    this.poll = setInterval(() => {
      this.refresh().catch((error: Error) =>
        this.logger.warn(`site settings not refreshed: ${error.message}`),
      );
    }, this.config.SITE_REFRESH_MS);
    this.poll.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.poll);
  }

  current(): SiteConfig {
    return this.site;
  }

  /** Every segment of the tree: a post's slug never equals one. */
  reservedSegments(): Set<string> {
    return this.reserved;
  }

  /**
   * Validates and stores a new configuration. A wrong value is a 400 naming it, as at
   * start-up; a segment a post's slug already uses is refused too. Nothing changes then.
   */
  async update(input: unknown, idempotency?: IdempotencyRequest): Promise<IdempotentAnswer<SiteConfig>> {
    let next: SiteConfig;
    try {
      next = parseSiteConfig(input);
    } catch (error) {
      if (error instanceof SiteConfigError)
        throw RpcError.badRequest(error.message.replace(/^Invalid site config: /, ''));
      throw error;
    }
    const result = await this.ledger.write(idempotency, async (manager) => {
      await this.assertNoSlugClash(manager, next);
      // An UPDATE answers [rows, count] through TypeORM's PostgreSQL driver.
      const [rows] = (await manager.query(
        `UPDATE posts.site_settings SET config = $1, version = version + 1, updated_at = now()
         WHERE id = 1 RETURNING config, version`,
        [JSON.stringify(next)],
      )) as [Row[], number];
      return rows[0]!.config;
    });
    await this.refresh();
    return result;
  }

  private async assertNoSlugClash(manager: EntityManager, site: SiteConfig): Promise<void> {
    const segments = [...reservedSegments(site)];
    const [clash] = (await manager.query(`SELECT slug FROM posts.posts WHERE slug = ANY($1) LIMIT 1`, [
      segments,
    ])) as { slug: string }[];
    if (clash)
      throw RpcError.badRequest(`segment "${clash.slug}" is the slug of a post: choose another segment`);
  }

  private async refresh(): Promise<void> {
    const [row] = (await this.db.query(
      `SELECT config, version FROM posts.site_settings WHERE id = 1`,
    )) as Row[];
    if (!row || row.version === this.version) return;
    this.site = row.config;
    this.reserved = reservedSegments(row.config);
    this.version = row.version;
  }
}
