import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { SiteConfig, SiteNodeInfo } from '@blog/contracts';
import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { placePostsByLabels } from './place-posts.js';

/** The PostgreSQL channel a saved change is announced on. */
export const SITE_CHANNEL = 'blog_site_settings';

/** The stored configuration with the listing paths that moved (old → current). */
export interface StoredSite {
  config: SiteConfig;
  version: number;
  redirects: Record<string, string>;
}

/** What one change of the site does to the stored rows, inside the change's transaction. */
export interface SiteChange {
  /** The configuration before the change; the row stays locked until the change is stored (one at a time). */
  lockedConfig(): Promise<SiteConfig>;
  /** The first of `slugs` a post already uses, if any. */
  usedSlug(slugs: string[]): Promise<string | undefined>;
  /** Puts the posts of the places `placeIds` on `node` (its id and labels). */
  placePosts(placeIds: string[], node: SiteNodeInfo): Promise<void>;
  /** How many posts each of `placeIds` holds (places without posts left out). */
  postCounts(placeIds: string[]): Promise<{ id: string; n: number }[]>;
  /** `from` answers with `to`, and so does every old path that led to `from`. */
  redirect(from: string, to: string): Promise<void>;
  /** Paths in use again (and any that would lead to themselves) stop redirecting. */
  dropRedirects(paths: string[]): Promise<void>;
  /** Stores the configuration with a new version, announced to every replica on commit. */
  save(config: SiteConfig): Promise<SiteConfig>;
  /** Every moved listing path forgotten (the operator's reset replaces the tree they belonged to). */
  clearRedirects(): Promise<void>;
  /** Posts on a place not among `placeIds` lose it (their labels stay). */
  unplacePostsOutside(placeIds: string[]): Promise<void>;
  /** Posts without a place get the leaf of `site` their labels name (placePostsByLabels). */
  placeByLabels(site: SiteConfig): Promise<void>;
  /** How many posts have no place. */
  unplacedPosts(): Promise<number>;
}

/**
 * The site's rows: the one configuration row (posts.site_settings, seeded once), the moved
 * listing paths (posts.site_redirects) and the place of each post when the tree changes.
 */
export abstract class SiteSettingsRepository {
  /** Stores `config` unless a configuration is stored already. */
  abstract seed(config: SiteConfig): Promise<void>;
  /** The stored version: a one-row primary-key read, to see if anything changed. */
  abstract storedVersion(): Promise<number | undefined>;
  abstract load(): Promise<StoredSite | undefined>;
  /** The id this blog's database made once (its archives' identity); undefined before the seed. */
  abstract blogId(): Promise<string | undefined>;
  /** A change's work on the transaction `manager` (from IdempotencyLedger.write). */
  abstract change(manager: EntityManager): SiteChange;
  /** Posts without a place (written before the tree had ids) get the leaf their labels name. */
  abstract placeUnplacedPosts(site: SiteConfig): Promise<void>;
  /**
   * Calls `onChange` whenever any replica stores a change (LISTEN), until the answered stop is
   * called; `onLost` once if the connection drops (the caller starts a new one).
   */
  abstract listen(onChange: () => void, onLost: (error: Error) => void): Promise<() => void>;
}

@Injectable()
export class PostgresSiteSettingsRepository extends SiteSettingsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async seed(config: SiteConfig): Promise<void> {
    await this.db.query(
      `INSERT INTO posts.site_settings (id, config, version) VALUES (1, $1, 1) ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(config)],
    );
  }

  async storedVersion(): Promise<number | undefined> {
    const [row] = (await this.db.query(`SELECT version FROM posts.site_settings WHERE id = 1`)) as {
      version: number;
    }[];
    return row?.version;
  }

  async blogId(): Promise<string | undefined> {
    const [row] = (await this.db.query(`SELECT blog_id FROM posts.site_settings WHERE id = 1`)) as {
      blog_id: string;
    }[];
    return row?.blog_id;
  }

  async load(): Promise<StoredSite | undefined> {
    const [row] = (await this.db.query(`SELECT config, version FROM posts.site_settings WHERE id = 1`)) as {
      config: SiteConfig;
      version: number;
    }[];
    if (!row) return undefined;
    const redirects = (await this.db.query(`SELECT from_path, to_path FROM posts.site_redirects`)) as {
      from_path: string;
      to_path: string;
    }[];
    return { ...row, redirects: Object.fromEntries(redirects.map((r) => [r.from_path, r.to_path])) };
  }

  change(manager: EntityManager): SiteChange {
    return {
      async lockedConfig() {
        const [row] = (await manager.query(
          `SELECT config FROM posts.site_settings WHERE id = 1 FOR UPDATE`,
        )) as { config: SiteConfig }[];
        return row!.config;
      },
      async usedSlug(slugs) {
        const [clash] = (await manager.query(`SELECT slug FROM posts.posts WHERE slug = ANY($1) LIMIT 1`, [
          slugs,
        ])) as { slug: string }[];
        return clash?.slug;
      },
      async placePosts(placeIds, node) {
        await manager.query(
          `UPDATE posts.posts SET place_id = $1, category = $2, submenu1 = $3, submenu2 = $4
           WHERE place_id = ANY($5)`,
          [node.id, node.labels[0], node.labels[1], node.labels[2] ?? null, placeIds],
        );
      },
      async postCounts(placeIds) {
        return (await manager.query(
          `SELECT place_id AS id, count(*)::int AS n FROM posts.posts WHERE place_id = ANY($1) GROUP BY place_id`,
          [placeIds],
        )) as { id: string; n: number }[];
      },
      async redirect(from, to) {
        await manager.query(`UPDATE posts.site_redirects SET to_path = $2 WHERE to_path = $1`, [from, to]);
        await manager.query(
          `INSERT INTO posts.site_redirects (from_path, to_path) VALUES ($1, $2)
           ON CONFLICT (from_path) DO UPDATE SET to_path = EXCLUDED.to_path, created_at = now()`,
          [from, to],
        );
      },
      async dropRedirects(paths) {
        await manager.query(
          `DELETE FROM posts.site_redirects WHERE from_path = ANY($1) OR from_path = to_path`,
          [paths],
        );
      },
      async save(config) {
        // An UPDATE answers [rows, count] through TypeORM's PostgreSQL driver.
        const [rows] = (await manager.query(
          `UPDATE posts.site_settings SET config = $1, version = version + 1, updated_at = now()
           WHERE id = 1 RETURNING config, version`,
          [JSON.stringify(config)],
        )) as [{ config: SiteConfig; version: number }[], number];
        // Delivered to every replica's listener when this transaction commits.
        await manager.query(`SELECT pg_notify($1, $2)`, [SITE_CHANNEL, String(rows[0]!.version)]);
        return rows[0]!.config;
      },
      async clearRedirects() {
        await manager.query(`DELETE FROM posts.site_redirects`);
      },
      async unplacePostsOutside(placeIds) {
        await manager.query(`UPDATE posts.posts SET place_id = NULL WHERE NOT (place_id = ANY($1))`, [
          placeIds,
        ]);
      },
      async placeByLabels(site) {
        await placePostsByLabels((sql, params) => manager.query(sql, params), site);
      },
      async unplacedPosts() {
        const [row] = (await manager.query(
          `SELECT count(*)::int AS n FROM posts.posts WHERE place_id IS NULL`,
        )) as { n: number }[];
        return row!.n;
      },
    };
  }

  async placeUnplacedPosts(site: SiteConfig): Promise<void> {
    const [unplaced] = (await this.db.query(
      `SELECT 1 FROM posts.posts WHERE place_id IS NULL LIMIT 1`,
    )) as unknown[];
    if (unplaced) await placePostsByLabels((sql, params) => this.db.query(sql, params), site);
  }

  async listen(onChange: () => void, onLost: (error: Error) => void): Promise<() => void> {
    const pool = (this.db.driver as unknown as { master: Pool }).master;
    const client = await pool.connect();
    let released = false;
    let listening = false;
    const release = () => {
      if (released) return;
      released = true;
      client.release(true);
    };
    client.on('notification', onChange);
    client.on('error', (error: Error) => {
      // A dropped connection may report more than one error (the server's termination
      // notice, then the socket): release it and report it once. Before LISTEN has answered,
      // its failure reports it.
      if (released) return;
      release();
      if (listening) onLost(error);
    });
    try {
      await client.query(`LISTEN ${SITE_CHANNEL}`);
    } catch (error) {
      release();
      throw error;
    }
    listening = true;
    return release;
  }
}
