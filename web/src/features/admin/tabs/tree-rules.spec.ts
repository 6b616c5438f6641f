import type { SiteCategory, SiteConfig } from '@blog/contracts/site';
import {
  addCategory,
  addEntry,
  addSubcategory,
  leaves,
  moveItem,
  moveNode,
  removeNode,
  treeForSave,
  updateNode,
  urlOf,
} from './tree-rules';

/** Garage (General, Automobiles with Car One and Car Two, Motorcycles) and Projects (General). */
function tree(): SiteCategory[] {
  const entry = (id: string, label: string) => ({ id, label, segment: '', general: false });
  return [
    {
      id: 'garage',
      label: 'Garage',
      segment: '',
      subcategories: [
        { id: 'garage-general', label: 'General', segment: '', general: true, entries: [] },
        {
          id: 'autos',
          label: 'Automobiles',
          segment: 'cars',
          general: false,
          entries: [entry('car-1', 'Car One'), entry('car-2', 'Car Two')],
        },
        { id: 'motos', label: 'Motorcycles', segment: '', general: false, entries: [] },
      ],
    },
    {
      id: 'projects',
      label: 'Projects',
      segment: '',
      subcategories: [{ id: 'projects-general', label: 'General', segment: '', general: true, entries: [] }],
    },
  ];
}

const ids = (categories: SiteCategory[]) =>
  categories.map((c) => [c.id, c.subcategories.map((s) => [s.id, s.entries.map((e) => e.id)])]);

describe('tree rules', () => {
  test('updateNode changes the node at each level and nothing else; the tree given stays as it was', () => {
    const before = tree();
    const snapshot = JSON.stringify(before);
    const renamed = updateNode(before, [0], { label: 'Workshop', intro: 'Tools' });
    expect(renamed[0]).toMatchObject({ id: 'garage', label: 'Workshop', intro: 'Tools' });
    expect(renamed[1]).toBe(before[1]); // untouched branches are shared
    const sub = updateNode(before, [0, 2], { segment: 'bikes' });
    expect(sub[0]!.subcategories[2]).toMatchObject({ id: 'motos', segment: 'bikes' });
    expect(sub[0]!.subcategories[1]).toBe(before[0]!.subcategories[1]);
    const entry = updateNode(before, [0, 1, 1], { underConstruction: true });
    expect(entry[0]!.subcategories[1]!.entries[1]).toMatchObject({ id: 'car-2', underConstruction: true });
    expect(entry[0]!.subcategories[1]!.entries[0]).toBe(before[0]!.subcategories[1]!.entries[0]);
    expect(JSON.stringify(before)).toBe(snapshot);
  });

  test('moveNode swaps a node with its neighbour at each level; past either end nothing moves', () => {
    const before = tree();
    expect(ids(moveNode(before, [1], -1)).map(([id]) => id)).toEqual(['projects', 'garage']);
    expect(moveNode(before, [0], -1)).toBe(before);
    expect(moveNode(before, [0, 1], 1)[0]!.subcategories.map((s) => s.id)).toEqual([
      'garage-general',
      'motos',
      'autos',
    ]);
    expect(moveNode(before, [0, 1, 0], 1)[0]!.subcategories[1]!.entries.map((e) => e.id)).toEqual([
      'car-2',
      'car-1',
    ]);
    expect(moveNode(before, [0, 1, 1], 1)[0]!.subcategories[1]!.entries.map((e) => e.id)).toEqual([
      'car-1',
      'car-2',
    ]);
  });

  test('moveItem: a new list, or the same list when the move leaves it', () => {
    const list = ['a', 'b', 'c'];
    expect(moveItem(list, 2, -1)).toEqual(['a', 'c', 'b']);
    expect(list).toEqual(['a', 'b', 'c']);
    expect(moveItem(list, 2, 1)).toBe(list);
  });

  test('removeNode takes the node and the levels under it away', () => {
    const before = tree();
    expect(ids(removeNode(before, [0]))).toEqual([['projects', [['projects-general', []]]]]);
    expect(removeNode(before, [0, 1])[0]!.subcategories.map((s) => s.id)).toEqual([
      'garage-general',
      'motos',
    ]);
    expect(removeNode(before, [0, 1, 0])[0]!.subcategories[1]!.entries.map((e) => e.id)).toEqual(['car-2']);
    expect(ids(before)).toEqual(ids(tree()));
  });

  test('adding: a category comes with its General sub-category; new nodes are numbered at the end', () => {
    let next = 0;
    const newId = () => `new-${++next}`;
    const added = addCategory(tree(), newId);
    expect(added[2]).toEqual({
      id: 'new-1',
      label: 'New category 3',
      segment: '',
      subcategories: [{ id: 'new-2', label: 'General', segment: '', general: true, entries: [] }],
    });
    expect(addSubcategory(tree(), 1, 'sub')[1]!.subcategories[1]).toEqual({
      id: 'sub',
      label: 'New sub-category 2',
      segment: '',
      general: false,
      entries: [],
    });
    expect(addEntry(tree(), [0, 1], 'car-3')[0]!.subcategories[1]!.entries[2]).toEqual({
      id: 'car-3',
      label: 'New entry 3',
      segment: '',
      general: false,
    });
  });

  test('leaves: sub-categories without entries and entries, except the subtree being removed', () => {
    const names = (except: string) => leaves(tree(), except).map((leaf) => leaf.name);
    expect(names('')).toEqual([
      'Garage / General',
      'Garage / Automobiles / Car One',
      'Garage / Automobiles / Car Two',
      'Garage / Motorcycles',
      'Projects / General',
    ]);
    expect(names('autos')).toEqual(['Garage / General', 'Garage / Motorcycles', 'Projects / General']);
    expect(names('garage')).toEqual(['Projects / General']);
    expect(names('car-1')).not.toContain('Garage / Automobiles / Car One');
  });

  test('urlOf: the typed segment, else the derived one; General leaves no segment', () => {
    const [garage] = tree();
    const [general, autos] = garage!.subcategories;
    expect(urlOf(garage!)).toBe('/garage');
    expect(urlOf(garage!, general!)).toBe('/garage');
    expect(urlOf(garage!, autos!, autos!.entries[0]!)).toBe('/garage/cars/car-one');
  });

  test('treeForSave sends a blank segment as none, for the server to derive', () => {
    const site = { title: 'Blog', categories: updateNode(tree(), [0, 2], { segment: '  ' }) } as SiteConfig;
    const saved = treeForSave(site);
    expect(saved.categories[0]!.segment).toBeUndefined();
    expect(saved.categories[0]!.subcategories[1]!.segment).toBe('cars');
    expect(saved.categories[0]!.subcategories[2]!.segment).toBeUndefined();
    expect(saved.title).toBe('Blog');
  });
});
