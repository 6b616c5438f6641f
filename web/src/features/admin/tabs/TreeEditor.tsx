import { deriveSegment, type SiteCategory } from '@blog/contracts/site';
import { useState, type ReactNode } from 'react';
import { Field } from '../../../components/ui';
import { Modal } from '../ui/Modal';
import {
  addCategory,
  addEntry,
  addSubcategory,
  leaves,
  moveNode,
  removeNode,
  updateNode,
  urlOf,
  type NodeChange,
  type TreeMove,
  type TreePath,
} from './tree-rules';

type Node = { id: string; label: string; segment: string };

const newId = () => `n${crypto.randomUUID().replace(/-/g, '').slice(0, 11)}`;

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

  const update = (path: TreePath, change: NodeChange) => onChange(updateNode(categories, path, change));
  const ask = (id: string, name: string, path: TreePath) => {
    setTarget('');
    setRemoving({ id, name, apply: () => onChange(removeNode(categories, path)) });
  };
  /**
   * The fields and buttons every node has (its label, its URL segment, up, down and remove);
   * `chain` is the nodes from the category down to this one.
   */
  const nodeFields = (path: TreePath, chain: Node[], kind: string, children?: ReactNode) => {
    const node = chain[chain.length - 1]!;
    const name = chain.map((n) => n.label).join(' / ');
    return (
      <NodeFields
        node={node}
        kind={kind}
        url={urlOf(...chain)}
        onChange={(change) => update(path, change)}
        actions={
          <Actions
            name={name}
            onUp={() => onChange(moveNode(categories, path, -1))}
            onDown={() => onChange(moveNode(categories, path, 1))}
            onRemove={() => ask(node.id, name, path)}
          />
        }
      >
        {children}
      </NodeFields>
    );
  };

  return (
    <fieldset className="tree-editor">
      <legend>Categories</legend>
      {categories.map((category, i) => (
        <details key={category.id} className="tree-node tree-category">
          <summary>
            {category.label} <code>{urlOf(category)}</code>
          </summary>
          {nodeFields(
            [i],
            [category],
            'Category',
            <>
              <Field id={`intro-${category.id}`} label={<>Intro of {category.label}</>}>
                <textarea
                  id={`intro-${category.id}`}
                  rows={2}
                  value={category.intro ?? ''}
                  onChange={(e) => update([i], { intro: e.target.value })}
                />
              </Field>
              <Field id={`empty-${category.id}`} label={<>Text when {category.label} has no posts</>}>
                <input
                  id={`empty-${category.id}`}
                  value={category.emptyText ?? ''}
                  onChange={(e) => update([i], { emptyText: e.target.value })}
                />
              </Field>
            </>,
          )}
          <ul className="tree-children">
            {category.subcategories.map((sub, j) => (
              <li key={sub.id} className="tree-node">
                {nodeFields([i, j], [category, sub], 'Sub-category')}
                <ul className="tree-children">
                  {sub.entries.map((entry, k) => (
                    <li key={entry.id} className="tree-node">
                      {nodeFields(
                        [i, j, k],
                        [category, sub, entry],
                        'Entry',
                        <label className="tree-check">
                          <input
                            type="checkbox"
                            checked={entry.underConstruction ?? false}
                            onChange={(e) =>
                              update([i, j, k], { underConstruction: e.target.checked || undefined })
                            }
                          />
                          Under construction
                        </label>,
                      )}
                    </li>
                  ))}
                </ul>
                <button
                  type="button"
                  className="button button-small button-secondary"
                  onClick={() => onChange(addEntry(categories, [i, j], newId()))}
                >
                  Add entry to {sub.label}
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="button button-small button-secondary"
            onClick={() => onChange(addSubcategory(categories, i, newId()))}
          >
            Add sub-category to {category.label}
          </button>
        </details>
      ))}
      <button
        type="button"
        className="button button-secondary"
        onClick={() => onChange(addCategory(categories, newId))}
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
  onChange(change: Pick<NodeChange, 'label' | 'segment'>): void;
  actions: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="tree-fields">
      <Field id={`label-${node.id}`} label={<>{kind}</>}>
        <input
          id={`label-${node.id}`}
          value={node.label}
          onChange={(e) => onChange({ label: e.target.value })}
        />
      </Field>
      <Field id={`segment-${node.id}`} label={<>URL segment of {node.label}</>}>
        <input
          id={`segment-${node.id}`}
          value={node.segment}
          placeholder={deriveSegment(node.label)}
          onChange={(e) => onChange({ segment: e.target.value })}
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
