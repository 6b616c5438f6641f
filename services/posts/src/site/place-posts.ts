import { siteNodes, type SiteConfig } from '@blog/contracts';

type Query = (sql: string, params: unknown[]) => Promise<unknown>;

/**
 * Posts without a place (written before the tree had ids, or after the tree was reset from
 * the file) get the id of the leaf their labels name, compared without case. Posts whose
 * labels name no leaf keep none.
 */
export async function placePostsByLabels(query: Query, site: SiteConfig): Promise<void> {
  for (const node of siteNodes(site).filter((n) => n.leaf))
    await query(
      `UPDATE posts.posts SET place_id = $1
       WHERE place_id IS NULL AND lower(category) = lower($2) AND lower(submenu1) = lower($3)
         AND lower(coalesce(submenu2, '')) = lower(coalesce($4, ''))`,
      [node.id, node.labels[0], node.labels[1], node.labels[2] ?? null],
    );
}
