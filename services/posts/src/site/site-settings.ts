import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  findSiteNode,
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
import type { PostsConfig } from '../config.js';
import { POSTS_CONFIG, SEED_SITE_CONFIG } from '../tokens.js';
import { SiteSettingsRepository, type SiteChange } from './site-settings.repository.js';

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
  private stopListening?: () => void;
  private closing = false;

  constructor(
    private readonly store: SiteSettingsRepository,
    @Inject(SEED_SITE_CONFIG) private readonly seed: SiteConfig,
    @Inject(POSTS_CONFIG) private readonly config: PostsConfig,
    private readonly ledger: IdempotencyLedger,
  ) {}

  /** Seeds the row from the file on the very first start (a later start leaves it alone), then loads it. */
  async onModuleInit(): Promise<void> {
    await this.store.seed(this.seed);
    await this.refresh();
    await this.store.placeUnplacedPosts(this.site);
    await this.listen();
    this.poll = setInterval(() => this.refreshLogged(), this.config.SITE_REFRESH_MS);
    this.poll.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.poll);
    this.stopListening?.();
  }

  /**
   * A change saved on any replica is announced with NOTIFY when its transaction commits:
   * every replica reloads at once, so no two replicas build a post's URL from different
   * trees (one would send readers back to the other's old path). The version poll above is
   * the fallback while this connection is down.
   */
  private async listen(): Promise<void> {
    let stop: (() => void) | undefined;
    try {
      stop = await this.store.listen(
        () => this.refreshLogged(),
        (error) => {
          this.logger.warn(`site settings listener lost: ${error.message}`);
          if (this.stopListening === stop) this.stopListening = undefined;
          if (!this.closing) setTimeout(() => void this.listen(), this.config.SITE_REFRESH_MS).unref();
        },
      );
      if (this.closing) stop();
      else this.stopListening = stop;
    } catch (error) {
      this.logger.warn(`site settings listener not started: ${(error as Error).message}`);
      if (!this.closing) setTimeout(() => void this.listen(), this.config.SITE_REFRESH_MS).unref();
    }
  }

  private refreshLogged(): void {
    this.refresh().catch((error: Error) => this.logger.warn(`site settings not refreshed: ${error.message}`));
  }

  current(): SiteConfig {
    return this.site;
  }

  /** Moves with every stored change; known at once through NOTIFY (see listen). */
  currentVersion(): number {
    return this.version;
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
      const change = this.store.change(manager);
      // One change at a time: the row is locked until this one is stored.
      const previous = await change.lockedConfig();
      await this.assertNoSlugClash(change, next);
      const moved = await this.replacePosts(change, siteNodes(previous), siteNodes(next), moves);
      await this.keepOldPaths(change, siteNodes(previous), siteNodes(next), moved);
      return change.save(next);
    });
    await this.refresh();
    return result;
  }

  /** Moves posts as asked, refuses to orphan any, and rewrites the labels of posts whose node was renamed. */
  private async replacePosts(
    change: SiteChange,
    before: SiteNodeInfo[],
    after: SiteNodeInfo[],
    moves: { from: string; to: string }[],
  ): Promise<Map<string, SiteNodeInfo>> {
    const moved = new Map<string, SiteNodeInfo>();
    const afterById = new Map(after.map((node) => [node.id, node]));
    for (const move of moves) {
      const from = findSiteNode(before, move.from);
      if (!from) throw RpcError.badRequest(`moves: no node "${move.from}" in the current tree`);
      const to = findSiteNode(after, move.to);
      if (!to) throw RpcError.badRequest(`moves: no node "${move.to}" in the new tree`);
      if (!to.leaf)
        throw RpcError.badRequest(`moves: ${describe(to)} has levels under it; move posts to one of them`);
      await change.placePosts(subtree(before, from.id), to);
      moved.set(from.id, to);
    }
    // Posts sit on leaves: a removed leaf, or one that now has levels under it, must be empty.
    const orphaned = before.filter((node) => node.leaf && !afterById.get(node.id)?.leaf);
    if (orphaned.length) {
      const used = await change.postCounts(orphaned.map((node) => node.id));
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
        await change.placePosts([node.id], now);
    }
    return moved;
  }

  /**
   * Every listing path that moved answers a 301 to the new one (the gateway also sends the
   * posts and pages under it), and so does a removed one whose posts were moved. A chain A→B→C stores A→C; a path in use again stops redirecting.
   */
  private async keepOldPaths(
    change: SiteChange,
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
    for (const [from, to] of moved) await change.redirect(from, to);
    await change.dropRedirects(after.map((node) => node.path));
  }

  private async assertNoSlugClash(change: SiteChange, site: SiteConfig): Promise<void> {
    const clash = await change.usedSlug([...reservedSegments(site)]);
    if (clash) throw RpcError.badRequest(`segment "${clash}" is the slug of a post: choose another segment`);
  }

  /**
   * The stored configuration as of now, for the gateways' reads (each asks at most once per
   * SITE_CACHE_MS): a gateway that forgot its copy after forwarding a change gets that change,
   * whichever replica answers, instead of one up to SITE_REFRESH_MS old.
   */
  async latest(): Promise<SiteConfig> {
    await this.refresh();
    return this.site;
  }

  /** Old listing paths → their current ones (chains already followed), as of now (see latest). */
  async latestRedirects(): Promise<Record<string, string>> {
    await this.refresh();
    return this.redirectMap;
  }

  /** Reloads the configuration and redirects when the stored version moved (a one-row primary-key read otherwise). */
  private async refresh(): Promise<void> {
    const stored = await this.store.storedVersion();
    if (stored === undefined || stored === this.version) return;
    const row = await this.store.load();
    if (!row || row.version === this.version) return;
    this.site = row.config;
    this.reserved = reservedSegments(row.config);
    this.redirectMap = row.redirects;
    this.version = row.version;
  }
}
