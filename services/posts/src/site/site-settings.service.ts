import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  parseSiteConfig,
  reservedSegments,
  SiteConfigError,
  siteNodes,
  type SiteNodeInfo,
  type IdempotencyRequest,
  type IdempotentAnswer,
  type SiteConfig,
} from '@blog/contracts';
import { IdempotencyLedger, parseOrThrow, RpcError } from '@blog/server-kit';
import { z } from 'zod';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostsConfig } from '../config.js';
import { POSTS_CONFIG, SEED_SITE_CONFIG } from '../tokens.js';

interface Row {
  config: SiteConfig;
  version: number;
}

/** A move of the posts of a node (and the nodes under it) to a leaf of the new tree. */
const movesSchema = z
  .array(
    z.object({
      from: z.string().trim().min(1, 'from is required'),
      to: z.string().trim().min(1, 'to is required'),
    }),
  )
  .max(200)
  .default([]);

const describe = (node: SiteNodeInfo) => node.labels.join(' → ');

/** A node named by its id or by its labels ("Garage / Automobiles / Car One", any case). */
function findNode(nodes: SiteNodeInfo[], ref: string): SiteNodeInfo | undefined {
  const byId = nodes.find((node) => node.id === ref);
  if (byId) return byId;
  const labels = ref.split('/').map((part) => part.trim().toLowerCase());
  return nodes.find(
    (node) =>
      node.labels.length === labels.length &&
      node.labels.every((label, i) => label.toLowerCase() === labels[i]),
  );
}

/** The ids of a node and every node under it. */
function subtree(nodes: SiteNodeInfo[], id: string): string[] {
  const ids = [id];
  for (const node of nodes) if (node.parentId && ids.includes(node.parentId)) ids.push(node.id);
  return ids;
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
  private redirectMap: Record<string, string> = {};
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
    await this.placeUnplacedPosts();
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

  /** Old listing paths → their current ones (after segment changes; chains already followed). */
  redirects(): Record<string, string> {
    return this.redirectMap;
  }

  /** Every segment of the tree: a post's slug never equals one. */
  reservedSegments(): Set<string> {
    return this.reserved;
  }

  /**
   * Validates and stores a new configuration. A wrong value is a 400 naming it, as at
   * start-up; a segment a post's slug already uses is refused too. Nodes keep their ids, so
   * a renamed node keeps its posts (their labels follow), a changed URL leaves a redirect
   * from the old one, and a node posts still use cannot be removed (409) unless `moves`
   * sends those posts elsewhere in the same step. Nothing changes when anything is refused.
   */
  async update(
    input: unknown,
    rawMoves: unknown,
    idempotency?: IdempotencyRequest,
  ): Promise<IdempotentAnswer<SiteConfig>> {
    let next: SiteConfig;
    try {
      next = parseSiteConfig(input);
    } catch (error) {
      if (error instanceof SiteConfigError)
        throw RpcError.badRequest(error.message.replace(/^Invalid site config: /, ''));
      throw error;
    }
    const moves = parseOrThrow(movesSchema, rawMoves);
    const result = await this.ledger.write(idempotency, async (manager) => {
      // One change at a time: the row is locked until this one is stored.
      const [{ config: previous }] = (await manager.query(
        `SELECT config FROM posts.site_settings WHERE id = 1 FOR UPDATE`,
      )) as Row[];
      await this.assertNoSlugClash(manager, next);
      const moved = await this.replacePosts(manager, siteNodes(previous), siteNodes(next), moves);
      await this.keepOldPaths(manager, siteNodes(previous), siteNodes(next), moved);
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

  /** Moves posts as asked, refuses to orphan any, and rewrites the labels of posts whose node was renamed. */
  private async replacePosts(
    manager: EntityManager,
    before: SiteNodeInfo[],
    after: SiteNodeInfo[],
    moves: { from: string; to: string }[],
  ): Promise<Map<string, SiteNodeInfo>> {
    const moved = new Map<string, SiteNodeInfo>();
    const afterById = new Map(after.map((node) => [node.id, node]));
    const setPlace = (node: SiteNodeInfo, where: string, params: unknown[]) =>
      manager.query(
        `UPDATE posts.posts SET place_id = $1, category = $2, submenu1 = $3, submenu2 = $4 WHERE ${where}`,
        [node.id, node.labels[0], node.labels[1], node.labels[2] ?? null, ...params],
      );
    for (const move of moves) {
      const from = findNode(before, move.from);
      if (!from) throw RpcError.badRequest(`moves: no node "${move.from}" in the current tree`);
      const to = findNode(after, move.to);
      if (!to) throw RpcError.badRequest(`moves: no node "${move.to}" in the new tree`);
      if (!to.leaf)
        throw RpcError.badRequest(`moves: ${describe(to)} has levels under it; move posts to one of them`);
      await setPlace(to, `place_id = ANY($5)`, [subtree(before, from.id)]);
      moved.set(from.id, to);
    }
    // Posts sit on leaves: a removed leaf, or one that now has levels under it, must be empty.
    const orphaned = before.filter((node) => node.leaf && !afterById.get(node.id)?.leaf);
    if (orphaned.length) {
      const used = (await manager.query(
        `SELECT place_id AS id, count(*)::int AS n FROM posts.posts WHERE place_id = ANY($1) GROUP BY place_id`,
        [orphaned.map((node) => node.id)],
      )) as { id: string; n: number }[];
      if (used.length) {
        const first = before.find((node) => node.id === used[0]!.id)!;
        const n = used[0]!.n;
        throw RpcError.conflict(
          `${n} post${n === 1 ? '' : 's'} ${n === 1 ? 'uses' : 'use'} ${describe(first)}: move ${n === 1 ? 'it' : 'them'} to another place (moves) before removing it`,
        );
      }
    }
    for (const node of before) {
      const now = afterById.get(node.id);
      if (node.leaf && now && now.labels.join('\n') !== node.labels.join('\n'))
        await setPlace(now, `place_id = $5`, [node.id]);
    }
    return moved;
  }

  /**
   * Every listing path that moved answers a 301 to the new one (the gateway also sends the
   * posts and pages under it), and so does a removed one whose posts were moved. A chain A→B→C stores A→C; a path in use again stops redirecting.
   */
  private async keepOldPaths(
    manager: EntityManager,
    before: SiteNodeInfo[],
    after: SiteNodeInfo[],
    movedPosts: Map<string, SiteNodeInfo>,
  ) {
    const afterById = new Map(after.map((node) => [node.id, node]));
    const moved = new Map<string, string>();
    for (const node of before) {
      // A removed node whose posts were moved leads to where they went.
      const now = afterById.get(node.id) ?? movedPosts.get(node.id);
      if (now && now.path !== node.path) moved.set(node.path, now.path);
    }
    for (const [from, to] of moved) {
      await manager.query(`UPDATE posts.site_redirects SET to_path = $2 WHERE to_path = $1`, [from, to]);
      await manager.query(
        `INSERT INTO posts.site_redirects (from_path, to_path) VALUES ($1, $2)
         ON CONFLICT (from_path) DO UPDATE SET to_path = EXCLUDED.to_path, created_at = now()`,
        [from, to],
      );
    }
    await manager.query(`DELETE FROM posts.site_redirects WHERE from_path = ANY($1) OR from_path = to_path`, [
      after.map((node) => node.path),
    ]);
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
    const redirects = (await this.db.query(`SELECT from_path, to_path FROM posts.site_redirects`)) as {
      from_path: string;
      to_path: string;
    }[];
    this.site = row.config;
    this.reserved = reservedSegments(row.config);
    this.redirectMap = Object.fromEntries(redirects.map((r) => [r.from_path, r.to_path]));
    this.version = row.version;
  }

  /** Posts written before the tree had ids get the id of the node their labels name. */
  private async placeUnplacedPosts(): Promise<void> {
    const [unplaced] = (await this.db.query(
      `SELECT 1 FROM posts.posts WHERE place_id IS NULL LIMIT 1`,
    )) as unknown[];
    if (!unplaced) return;
    for (const node of siteNodes(this.site).filter((n) => n.leaf))
      await this.db.query(
        `UPDATE posts.posts SET place_id = $1
         WHERE place_id IS NULL AND lower(category) = lower($2) AND lower(submenu1) = lower($3)
           AND lower(coalesce(submenu2, '')) = lower(coalesce($4, ''))`,
        [node.id, node.labels[0], node.labels[1], node.labels[2] ?? null],
      );
  }
}
