import { deriveSegment, type SiteCategory, type SiteConfig, type SiteEntry } from '@blog/contracts/site';
import { useState, type ReactNode } from 'react';
import { Modal } from '../ui/Modal';
import { Field } from '../../../components/ui';

/** A move the save carries: the posts of a removed node go to a leaf of the new tree. */
export interface TreeMove {
  from: string;
  to: string;
}

type Node = { id: string; label: string; segment: string };
type Leaf = { id: string; name: string };

/** What a URL segment will be: the one typed, else the one derived from the label; General drops out. */
const segmentOf = (node: Node) =>
  node.label.trim().toLowerCase() === 'general' ? '' : node.segment || deriveSegment(node.label);
const urlOf = (...nodes: Node[]) => '/' + nodes.map(segmentOf).filter(Boolean).join('/');
const newId = () => `n${crypto.randomUUID().replace(/-/g, '').slice(0, 11)}`;

function moveItem<T>(list: T[], index: number, step: number): T[] {
  const target = index + step;
  if (target < 0 || target >= list.length) return list;
  const copy = [...list];
  [copy[index], copy[target]] = [copy[target]!, copy[index]!];
  return copy;
}

/** The leaves of the tree (where posts sit), skipping the subtree of `except`. */
function leaves(categories: SiteCategory[], except: string): Leaf[] {
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

interface TreeEditorProps {
  categories: SiteCategory[];
  onChange(categories: SiteCategory[]): void;
  onMove(move: TreeMove): void;
}

/**
 * The category tree: categories, sub-categories and level-2 entries (models) are added,
 * renamed, reordered and removed; each shows the URL it gives. Nodes keep their ids, so a
 * rename keeps its posts and its old links answer with a redirect.
 */
export function TreeEditor({ categories, onChange, onMove }: TreeEditorProps) {
  const [removing, setRemoving] = useState<{ id: string; name: string; apply(): void } | null>(null);
  const [target, setTarget] = useState('');

  const setCategory = (i: number, category: SiteCategory) =>
    onChange(categories.map((c, j) => (j === i ? category : c)));
  const ask = (id: string, name: string, apply: () => void) => {
    setTarget('');
    setRemoving({ id, name, apply });
  };

  return (
    <fieldset className="tree-editor">
      <legend>Categories</legend>
      {categories.map((category, i) => (
        <details key={category.id} className="tree-node tree-category">
          <summary>
            {category.label} <code>{urlOf(category)}</code>
          </summary>
          <NodeFields
            node={category}
            kind="Category"
            url={urlOf(category)}
            onChange={(node) => setCategory(i, { ...category, ...node })}
            actions={
              <Actions
                name={category.label}
                onUp={() => onChange(moveItem(categories, i, -1))}
                onDown={() => onChange(moveItem(categories, i, 1))}
                onRemove={() =>
                  ask(category.id, category.label, () =>
                    onChange(categories.filter((c) => c.id !== category.id)),
                  )
                }
              />
            }
          >
            <Field id={`intro-${category.id}`} label={<>Intro of {category.label}</>}>
              <textarea
                id={`intro-${category.id}`}
                rows={2}
                value={category.intro ?? ''}
                onChange={(e) => setCategory(i, { ...category, intro: e.target.value })}
              />
            </Field>
            <Field id={`empty-${category.id}`} label={<>Text when {category.label} has no posts</>}>
              <input
                id={`empty-${category.id}`}
                value={category.emptyText ?? ''}
                onChange={(e) => setCategory(i, { ...category, emptyText: e.target.value })}
              />
            </Field>
          </NodeFields>
          <ul className="tree-children">
            {category.subcategories.map((sub, j) => {
              const setSub = (next: SiteCategory['subcategories'][number]) =>
                setCategory(i, {
                  ...category,
                  subcategories: category.subcategories.map((s, k) => (k === j ? next : s)),
                });
              return (
                <li key={sub.id} className="tree-node">
                  <NodeFields
                    node={sub}
                    kind="Sub-category"
                    url={urlOf(category, sub)}
                    onChange={(node) => setSub({ ...sub, ...node })}
                    actions={
                      <Actions
                        name={`${category.label} / ${sub.label}`}
                        onUp={() =>
                          setCategory(i, {
                            ...category,
                            subcategories: moveItem(category.subcategories, j, -1),
                          })
                        }
                        onDown={() =>
                          setCategory(i, {
                            ...category,
                            subcategories: moveItem(category.subcategories, j, 1),
                          })
                        }
                        onRemove={() =>
                          ask(sub.id, `${category.label} / ${sub.label}`, () =>
                            setCategory(i, {
                              ...category,
                              subcategories: category.subcategories.filter((s) => s.id !== sub.id),
                            }),
                          )
                        }
                      />
                    }
                  />
                  <ul className="tree-children">
                    {sub.entries.map((entry, k) => {
                      const setEntries = (entries: SiteEntry[]) => setSub({ ...sub, entries });
                      return (
                        <li key={entry.id} className="tree-node">
                          <NodeFields
                            node={entry}
                            kind="Entry"
                            url={urlOf(category, sub, entry)}
                            onChange={(node) =>
                              setEntries(sub.entries.map((e, m) => (m === k ? { ...e, ...node } : e)))
                            }
                            actions={
                              <Actions
                                name={`${category.label} / ${sub.label} / ${entry.label}`}
                                onUp={() => setEntries(moveItem(sub.entries, k, -1))}
                                onDown={() => setEntries(moveItem(sub.entries, k, 1))}
                                onRemove={() =>
                                  ask(entry.id, `${category.label} / ${sub.label} / ${entry.label}`, () =>
                                    setEntries(sub.entries.filter((e) => e.id !== entry.id)),
                                  )
                                }
                              />
                            }
                          >
                            <label className="tree-check">
                              <input
                                type="checkbox"
                                checked={entry.underConstruction ?? false}
                                onChange={(e) =>
                                  setEntries(
                                    sub.entries.map((x, m) =>
                                      m === k
                                        ? { ...x, underConstruction: e.target.checked || undefined }
                                        : x,
                                    ),
                                  )
                                }
                              />
                              Under construction
                            </label>
                          </NodeFields>
                        </li>
                      );
                    })}
                  </ul>
                  <button
                    type="button"
                    className="button button-small button-secondary"
                    onClick={() =>
                      setSub({
                        ...sub,
                        entries: [
                          ...sub.entries,
                          {
                            id: newId(),
                            label: `New entry ${sub.entries.length + 1}`,
                            segment: '',
                            general: false,
                          },
                        ],
                      })
                    }
                  >
                    Add entry to {sub.label}
                  </button>
                </li>
              );
            })}
          </ul>
          <button
            type="button"
            className="button button-small button-secondary"
            onClick={() =>
              setCategory(i, {
                ...category,
                subcategories: [
                  ...category.subcategories,
                  {
                    id: newId(),
                    label: `New sub-category ${category.subcategories.length + 1}`,
                    segment: '',
                    general: false,
                    entries: [],
                  },
                ],
              })
            }
          >
            Add sub-category to {category.label}
          </button>
        </details>
      ))}
      <button
        type="button"
        className="button button-secondary"
        onClick={() =>
          onChange([
            ...categories,
            {
              id: newId(),
              label: `New category ${categories.length + 1}`,
              segment: '',
              subcategories: [{ id: newId(), label: 'General', segment: '', general: true, entries: [] }],
            },
          ])
        }
      >
        Add category
      </button>
      {removing && (
        <Modal title={`Remove ${removing.name}?`} onClose={() => setRemoving(null)}>
          <p>
            Its posts, and those of the levels under it, need another place. Saving is refused while any are
            left.
          </p>
          <Field id="tree-move-target" label="Move its posts to">
            <select id="tree-move-target" value={target} onChange={(e) => setTarget(e.target.value)}>
              <option value="">Nowhere: it has no posts</option>
              {leaves(categories, removing.id).map((leaf) => (
                <option key={leaf.id} value={leaf.id}>
                  {leaf.name}
                </option>
              ))}
            </select>
          </Field>
          <div className="admin-actions">
            <button type="button" className="button button-secondary" onClick={() => setRemoving(null)}>
              Cancel
            </button>
            <button
              type="button"
              className="button button-danger"
              onClick={() => {
                if (target) onMove({ from: removing.id, to: target });
                removing.apply();
                setRemoving(null);
              }}
            >
              Remove
            </button>
          </div>
        </Modal>
      )}
    </fieldset>
  );
}

function NodeFields({
  node,
  kind,
  url,
  onChange,
  actions,
  children,
}: {
  node: Node;
  kind: string;
  url: string;
  onChange(node: Node): void;
  actions: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="tree-fields">
      <Field id={`label-${node.id}`} label={<>{kind}</>}>
        <input
          id={`label-${node.id}`}
          value={node.label}
          onChange={(e) => onChange({ ...node, label: e.target.value })}
        />
      </Field>
      <Field id={`segment-${node.id}`} label={<>URL segment of {node.label}</>}>
        <input
          id={`segment-${node.id}`}
          value={node.segment}
          placeholder={deriveSegment(node.label)}
          onChange={(e) => onChange({ ...node, segment: e.target.value })}
          aria-describedby={`url-${node.id}`}
        />
        <span id={`url-${node.id}`} className="admin-hint">
          URL: <code>{url}</code>
        </span>
      </Field>
      {children}
      {actions}
    </div>
  );
}

function Actions({
  name,
  onUp,
  onDown,
  onRemove,
}: {
  name: string;
  onUp(): void;
  onDown(): void;
  onRemove(): void;
}) {
  return (
    <div className="admin-actions tree-actions">
      <button
        type="button"
        className="button button-small button-secondary"
        aria-label={`Move ${name} up`}
        onClick={onUp}
      >
        ↑
      </button>
      <button
        type="button"
        className="button button-small button-secondary"
        aria-label={`Move ${name} down`}
        onClick={onDown}
      >
        ↓
      </button>
      <button
        type="button"
        className="button button-small button-danger"
        aria-label={`Remove ${name}`}
        onClick={onRemove}
      >
        Remove
      </button>
    </div>
  );
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
