import { siteNodes, type SiteConfig } from '@blog/contracts';
import { replaceSite } from '../src/admin-cli.js';
import { garageSite } from './support/garage-site.js';
import { InMemorySiteSettingsRepository } from './support/in-memory-site-settings.repository.js';

/** The rules of the operator's `reset-site` (the file's tree replaces the stored one) against an in-memory repository. */
describe('site reset rules', () => {
  const leaf = (site: SiteConfig, label: string) => siteNodes(site).find((n) => n.labels.at(-1) === label)!;
  const stored = garageSite(['Car One', 'Car Two']);
  let store: InMemorySiteSettingsRepository;

  beforeEach(async () => {
    store = new InMemorySiteSettingsRepository();
    await store.seed(stored);
    store.rows.redirects.set('/garage/automobiles/coupe', '/garage/automobiles/car-one');
    store.rows.posts = [
      {
        slug: 'first-drive',
        placeId: leaf(stored, 'Car One').id,
        labels: ['Garage', 'Automobiles', 'Car One'],
      },
      { slug: 'second', placeId: leaf(stored, 'Car Two').id, labels: ['Garage', 'Automobiles', 'Car Two'] },
      { slug: 'older', placeId: null, labels: ['garage', 'automobiles', 'car three'] },
    ];
  });

  const reset = (site: SiteConfig) => store.transaction(() => replaceSite(store.change(), site));

  it('keeps posts on the nodes the file has by id, with its labels; places the others by label; forgets the redirects', async () => {
    // A file saved from GET /api/site: Car One kept its id under a new label; Car Two is gone; Car Three is new.
    const file = structuredClone(stored);
    const entries = file.categories[0]!.subcategories[0]!.entries;
    file.categories[0]!.subcategories[0]!.entries = [
      { ...entries[0]!, label: 'Green Wagon', segment: 'wagon' },
      ...garageSite(['Car Three']).categories[0]!.subcategories[0]!.entries,
    ];
    file.title = 'Saved copy';

    expect(await reset(file)).toBe(1);
    const [first, second, older] = store.rows.posts;
    expect(first).toEqual({
      slug: 'first-drive',
      placeId: leaf(stored, 'Car One').id,
      labels: ['Garage', 'Automobiles', 'Green Wagon'],
    });
    // Its node is gone and no leaf has its labels: it keeps them and waits for a place.
    expect(second).toEqual({ slug: 'second', placeId: null, labels: ['Garage', 'Automobiles', 'Car Two'] });
    expect(older!.placeId).toBe(leaf(file, 'Car Three').id);
    expect(store.rows.redirects.size).toBe(0);
    expect(store.rows.config!.title).toBe('Saved copy');
    expect(store.rows.version).toBe(2);
  });

  it('places every post by its labels when the file has no ids (the shipped file)', async () => {
    const shipped = garageSite(['Car Two', 'Car Three']);
    expect(await reset(shipped)).toBe(1);
    expect(store.rows.posts.map((post) => post.placeId)).toEqual([
      null,
      leaf(shipped, 'Car Two').id,
      leaf(shipped, 'Car Three').id,
    ]);
    expect(store.rows.config).toEqual(shipped);
  });
});
