/**
 * `npm run admin -- reset-site [file]` (scripts/admin.mjs): the site configuration replaced by
 * the file's (the argument, else SITE_CONFIG, else config/site.json), as on the very first
 * start. A post stays on its node when the file has that node's id (a file saved from
 * GET /api/site has them); the others are placed by their labels. The dashboard's redirects
 * of renamed paths go with the tree they belonged to. Running replicas take it at once (NOTIFY).
 */
import { siteNodes } from '@blog/contracts';
import { loadSiteConfig } from '@blog/server-kit';
import pg from 'pg';
import { placePostsByLabels } from './site/place-posts.js';
import { SITE_CHANNEL } from './site/site-settings.repository.js';

export interface SiteReset {
  /** Posts whose labels name no leaf of the file's tree: they keep their labels and no place. */
  unplaced: number;
  file: string;
}

export async function resetSite(databaseUrl: string, file?: string): Promise<SiteReset> {
  const path = file ?? process.env.SITE_CONFIG ?? 'config/site.json';
  const site = loadSiteConfig(path);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ version: number }>(
      `INSERT INTO posts.site_settings (id, config, version) VALUES (1, $1, 1)
       ON CONFLICT (id) DO UPDATE SET config = $1, version = posts.site_settings.version + 1, updated_at = now()
       RETURNING version`,
      [JSON.stringify(site)],
    );
    await client.query(`DELETE FROM posts.site_redirects`);
    // A post keeps its place when the file has that node (by id, as GET /api/site gives
    // them), with the file's labels; the others find theirs by label.
    const leaves = siteNodes(site).filter((node) => node.leaf);
    await client.query(`UPDATE posts.posts SET place_id = NULL WHERE NOT (place_id = ANY($1))`, [
      leaves.map((node) => node.id),
    ]);
    for (const node of leaves)
      await client.query(
        `UPDATE posts.posts SET category = $2, submenu1 = $3, submenu2 = $4 WHERE place_id = $1`,
        [node.id, node.labels[0], node.labels[1], node.labels[2] ?? null],
      );
    await placePostsByLabels((sql, params) => client.query(sql, params), site);
    const { rows: left } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM posts.posts WHERE place_id IS NULL`,
    );
    await client.query(`SELECT pg_notify($1, $2)`, [SITE_CHANNEL, String(rows[0]!.version)]);
    await client.query('COMMIT');
    return { unplaced: left[0]!.n, file: path };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
