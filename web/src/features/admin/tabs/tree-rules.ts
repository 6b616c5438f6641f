import {
  deriveSegment,
  type SiteCategory,
  type SiteConfig,
  type SiteEntry,
  type SiteSubcategory,
} from '@blog/contracts/site';

/**
 * The category tree editor's rules, apart from its screen: every change answers a new tree
 * (the one given is never changed), so the editor only says which node and what.
 */

/** A move the save carries: the posts of a removed node go to a leaf of the new tree. */
export interface TreeMove {
  from: string;
  to: string;
}

/** A node's place: [category], [category, sub-category] or [category, sub-category, entry]. */
export type TreePath = readonly [number] | readonly [number, number] | readonly [number, number, number];

/** What the editor's fields change on a node (each field exists on the nodes that show it). */
export type NodeChange = Partial<
  Pick<SiteCategory, 'label' | 'segment' | 'intro' | 'emptyText'> & Pick<SiteEntry, 'underConstruction'>
>;

type Node = { id: string; label: string; segment: string };

/** A place posts can sit (a sub-category without entries, or an entry), named by its labels. */
export interface Leaf {
  id: string;
  name: string;
}

/** What a URL segment will be: the one typed, else the one derived from the label; General drops out. */
export const segmentOf = (node: Node) =>
  node.label.trim().toLowerCase() === 'general' ? '' : node.segment || deriveSegment(node.label);

/** The URL a node gives, from its category down. */
export const urlOf = (...nodes: Node[]) => '/' + nodes.map(segmentOf).filter(Boolean).join('/');

const replaceAt = <T>(list: readonly T[], index: number, change: (item: T) => T): T[] =>
  list.map((item, i) => (i === index ? change(item) : item));

/** The list with the item at `index` moved `step` places; the same list when that leaves it. */
export function moveItem<T>(list: T[], index: number, step: number): T[] {
  const target = index + step;
  if (target < 0 || target >= list.length) return list;
  const copy = [...list];
  [copy[index], copy[target]] = [copy[target]!, copy[index]!];
  return copy;
}

/** A new tree where `change` gave a new list of the siblings of the node at `path`. */
function withSiblings(
  categories: SiteCategory[],
  path: TreePath,
  change: <T extends Node>(siblings: T[], index: number) => T[],
): SiteCategory[] {
  const [c, s, e] = path;
  if (s === undefined) return change(categories, c);
  return replaceAt(categories, c, (category) => ({
    ...category,
    subcategories:
      e === undefined
        ? change(category.subcategories, s)
        : replaceAt(category.subcategories, s, (sub) => ({ ...sub, entries: change(sub.entries, e) })),
  }));
}

/** The node at `path` with the fields of `change`. */
export const updateNode = (categories: SiteCategory[], path: TreePath, change: NodeChange) =>
  withSiblings(categories, path, (siblings, i) => replaceAt(siblings, i, (node) => ({ ...node, ...change })));

/** The node at `path` one place up (-1) or down (1) among its siblings. */
export const moveNode = (categories: SiteCategory[], path: TreePath, step: -1 | 1) =>
  withSiblings(categories, path, (siblings, i) => moveItem(siblings, i, step));

/** The tree without the node at `path` and the levels under it. */
export const removeNode = (categories: SiteCategory[], path: TreePath) =>
  withSiblings(categories, path, (siblings, i) => siblings.filter((_, j) => j !== i));

/** A new category at the end, with its General sub-category (where its posts sit at first). */
export function addCategory(categories: SiteCategory[], newId: () => string): SiteCategory[] {
  const id = newId();
  const general: SiteSubcategory = { id: newId(), label: 'General', segment: '', general: true, entries: [] };
  return [
    ...categories,
    { id, label: `New category ${categories.length + 1}`, segment: '', subcategories: [general] },
  ];
}

/** A new sub-category at the end of category `c`. */
export const addSubcategory = (categories: SiteCategory[], c: number, id: string) =>
  replaceAt(categories, c, (category) => ({
    ...category,
    subcategories: [
      ...category.subcategories,
      {
        id,
        label: `New sub-category ${category.subcategories.length + 1}`,
        segment: '',
        general: false,
        entries: [],
      },
    ],
  }));

/** A new entry at the end of sub-category `s` of category `c`. */
export const addEntry = (categories: SiteCategory[], [c, s]: readonly [number, number], id: string) =>
  replaceAt(categories, c, (category) => ({
    ...category,
    subcategories: replaceAt(category.subcategories, s, (sub) => ({
      ...sub,
      entries: [
        ...sub.entries,
        { id, label: `New entry ${sub.entries.length + 1}`, segment: '', general: false },
      ],
    })),
  }));

/** The leaves of the tree (where posts sit), skipping the subtree of `except`. */
export function leaves(categories: SiteCategory[], except: string): Leaf[] {
  const found: Leaf[] = [];
  for (const c of categories) {
    if (c.id === except) continue;
    for (const s of c.subcategories) {
      if (s.id === except) continue;
      if (s.entries.length === 0) found.push({ id: s.id, name: `${c.label} / ${s.label}` });
      for (const e of s.entries)
        if (e.id !== except) found.push({ id: e.id, name: `${c.label} / ${s.label} / ${e.label}` });
    }
  }
  return found;
}

/** The tree as the server takes it: an empty segment means "derive it from the label". */
export function treeForSave(site: SiteConfig): SiteConfig {
  // The server derives a missing segment; the type says string, the wire allows none.
  const clean = <T extends Node>(node: T): T =>
    ({ ...node, segment: node.segment.trim() || undefined }) as unknown as T;
  return {
    ...site,
    categories: site.categories.map((c) => ({
      ...clean(c),
      subcategories: c.subcategories.map((s) => ({ ...clean(s), entries: s.entries.map(clean) })),
    })),
  };
}
