import {
  findSiteNode,
  siteNodes,
  type ImportOptions,
  type SiteConfig,
  type SiteNodeInfo,
} from '@blog/contracts';
import type { SourcePost } from './source-post.js';

/**
 * The leaf an imported post goes to: its first category the import's map names, else the
 * tree's "More" (its last top-level node), each time the "General" child first; the
 * categories no map names are kept as tags (`unmapped`).
 */
export function placeOf(
  site: SiteConfig,
  post: Pick<SourcePost, 'categories' | 'tags'>,
  options: Pick<ImportOptions, 'categoryMap'>,
): { leaf: SiteNodeInfo; unmapped: string[] } {
  const nodes = siteNodes(site);
  const leafUnder = (node: SiteNodeInfo): SiteNodeInfo | undefined => {
    if (node.leaf) return node;
    const children = nodes.filter((n) => n.parentId === node.id);
    const general = children.find((n) => n.labels.at(-1)!.toLowerCase() === 'general');
    for (const child of general ? [general, ...children] : children) {
      const found = leafUnder(child);
      if (found) return found;
    }
    return undefined;
  };
  const unmapped: string[] = [];
  let leaf: SiteNodeInfo | undefined;
  for (const category of post.categories) {
    const target = options.categoryMap[category.slug] ?? options.categoryMap[category.name];
    const node = target ? findSiteNode(nodes, target) : undefined;
    const found = node ? leafUnder(node) : undefined;
    if (found) leaf ??= found;
    else if (category.name && !post.tags.includes(category.name)) unmapped.push(category.name);
  }
  if (!leaf) {
    const more =
      nodes.find((n) => n.parentId === null && n.labels[0]!.toLowerCase() === 'more') ??
      nodes.filter((n) => n.parentId === null).at(-1)!;
    leaf = leafUnder(more)!;
  }
  // Ghost's tags are both its tags and its categories: a mapped one is not repeated as a tag.
  return { leaf, unmapped };
}
