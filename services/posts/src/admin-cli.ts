/**
 * `npm run admin -- reset-site [file]` (scripts/admin.mjs): the site configuration replaced by
 * the file's (the argument, else SITE_CONFIG, else config/site.json), as on the very first
 * start. A post stays on its node when the file has that node's id (a file saved from
 * GET /api/site has them); the others are placed by their labels. The dashboard's redirects
 * of renamed paths go with the tree they belonged to. Running replicas take it at once (NOTIFY).
 * It works through the service's own repository, on a data source of the posts schema.
 */
import { siteNodes, type SiteConfig } from '@blog/contracts';
import { dataSourceOptions, loadSiteConfig } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import { PostgresSiteSettingsRepository, type SiteChange } from './site/site-settings.repository.js';

export interface SiteReset {
  /** Posts whose labels name no leaf of the file's tree: they keep their labels and no place. */
  unplaced: number;
  file: string;
}

/** The reset's rules on one change (its transaction): answers how many posts have no place after it. */
export async function replaceSite(change: SiteChange, site: SiteConfig): Promise<number> {
  // One change at a time: the dashboard's saves wait for this one.
  await change.lockedConfig();
  await change.clearRedirects();
  // A post keeps its place when the file has that node (by id, as GET /api/site gives
  // them), with the file's labels; the others find theirs by label.
  const leaves = siteNodes(site).filter((node) => node.leaf);
  await change.unplacePostsOutside(leaves.map((node) => node.id));
  for (const node of leaves) await change.placePosts([node.id], node);
  await change.placeByLabels(site);
  const unplaced = await change.unplacedPosts();
  await change.save(site);
  return unplaced;
}

export async function resetSite(databaseUrl: string, file?: string): Promise<SiteReset> {
  const path = file ?? process.env.SITE_CONFIG ?? 'config/site.json';
  const site = loadSiteConfig(path);
  // The running service owns the migrations: a command never runs them.
  const db = await new DataSource({
    ...dataSourceOptions({ url: databaseUrl, schema: 'posts', entities: [], migrations: [], poolSize: 2 }),
    migrationsRun: false,
  }).initialize();
  try {
    const store = new PostgresSiteSettingsRepository(db);
    // A database no service has started on yet has no row to replace: the file's is the first.
    await store.seed(site);
    const unplaced = await db.transaction((manager) => replaceSite(store.change(manager), site));
    return { unplaced, file: path };
  } finally {
    await db.destroy();
  }
}
