import { siteNodes, type SiteConfig } from '@blog/contracts';
import type { IdempotencyLedger } from '@blog/server-kit';
import type { PostsConfig } from '../src/config.js';
import { SiteSettings } from '../src/site/site-settings.js';
import { InMemorySiteSettingsRepository } from './support/in-memory-site-settings.repository.js';
import { garageSite } from './support/garage-site.js';

/** The rules of changing the site's tree (posts keep or change places, old paths redirect) against an in-memory repository. */
describe('site settings rules', () => {
  const seed = garageSite(['Car One', 'Car Two']);
  const node = (site: SiteConfig, label: string) => siteNodes(site).find((n) => n.labels.at(-1) === label)!;
  const carOne = node(seed, 'Car One');
  const carTwo = node(seed, 'Car Two');
  const one = { id: carOne.id, label: 'Car One' };
  const two = { id: carTwo.id, label: 'Car Two' };
  /** The seed with Car One's and Car Two's entries replaced. */
  const withEntries = (entries: { id?: string; label: string }[]): SiteConfig => {
    const site = structuredClone(seed);
    site.categories[0]!.subcategories[0]!.entries = entries.map((entry) => ({
      ...entry,
      segment: undefined,
    })) as never;
    return site;
  };
  let store: InMemorySiteSettingsRepository;
  let settings: SiteSettings;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: { body: unknown }) => error.body,
    );

  beforeEach(async () => {
    store = new InMemorySiteSettingsRepository();
    store.rows.posts = [
      { slug: 'first-drive', placeId: carOne.id, labels: ['Garage', 'Automobiles', 'Car One'] },
      { slug: 'old-post', placeId: null, labels: ['garage', 'automobiles', 'car two'] },
    ];
    const ledger = {
      write: async (_request: unknown, work: (manager: never) => Promise<unknown>) => ({
        answer: await store.transaction(() => work(undefined as never)),
        replayed: false,
      }),
    };
    settings = new SiteSettings(
      store,
      seed,
      { SITE_REFRESH_MS: 60_000 } as PostsConfig,
      ledger as unknown as IdempotencyLedger,
    );
    await settings.onModuleInit();
  });
  afterEach(() => settings.onApplicationShutdown());

  it('seeds the stored configuration once and places posts written before the tree had ids', async () => {
    expect(settings.current()).toEqual(seed);
    expect(settings.currentVersion()).toBe(1);
    expect(store.rows.posts[1]!.placeId).toBe(carTwo.id);
    const again = new SiteSettings(
      store,
      { ...seed, title: 'Another file' },
      { SITE_REFRESH_MS: 60_000 } as PostsConfig,
      {} as IdempotencyLedger,
    );
    await again.onModuleInit();
    expect(again.current().title).toBe('My blog');
    await again.onApplicationShutdown();
  });

  it('a renamed node keeps its posts under the new labels and its old path answers with the new one, chains followed', async () => {
    await settings.update(withEntries([{ id: carOne.id, label: 'Car 1' }, two]), []);
    expect(store.rows.posts[0]).toEqual({
      slug: 'first-drive',
      placeId: carOne.id,
      labels: ['Garage', 'Automobiles', 'Car 1'],
    });
    expect(settings.currentVersion()).toBe(2);
    expect(await settings.latestRedirects()).toEqual({
      '/garage/automobiles/car-one': '/garage/automobiles/car-1',
    });

    await settings.update(withEntries([{ id: carOne.id, label: 'Car Uno' }, two]), []);
    expect(await settings.latestRedirects()).toEqual({
      '/garage/automobiles/car-one': '/garage/automobiles/car-uno',
      '/garage/automobiles/car-1': '/garage/automobiles/car-uno',
    });
    // A path in use again stops redirecting.
    await settings.update(withEntries([{ id: carOne.id, label: 'Car One' }, two]), []);
    expect(await settings.latestRedirects()).toEqual({
      '/garage/automobiles/car-1': '/garage/automobiles/car-one',
      '/garage/automobiles/car-uno': '/garage/automobiles/car-one',
    });
  });

  it('refuses to remove a node posts use (409), changing nothing, unless moves sends them elsewhere', async () => {
    const before = structuredClone(store.rows);
    expect(await failure(settings.update(withEntries([one]), []))).toEqual({
      status: 409,
      error:
        '1 post uses Garage → Automobiles → Car Two: move it to another place (moves) before removing it',
    });
    expect(store.rows).toEqual(before);
    expect(settings.currentVersion()).toBe(1);

    await settings.update(withEntries([one]), [{ from: carTwo.id, to: carOne.id }]);
    expect(store.rows.posts.map((post) => post.placeId)).toEqual([carOne.id, carOne.id]);
    expect(store.rows.posts[1]!.labels).toEqual(['Garage', 'Automobiles', 'Car One']);
    expect(await settings.latestRedirects()).toEqual({
      '/garage/automobiles/car-two': '/garage/automobiles/car-one',
    });
  });

  it('answers 400 for a bad configuration, a segment a post uses and a move to a node with levels under it', async () => {
    const before = structuredClone(store.rows);
    expect(await failure(settings.update({ ...seed, categories: [] }, []))).toMatchObject({
      status: 400,
      error: 'categories: at least one category is required',
    });
    expect(await failure(settings.update(withEntries([one, two, { label: 'First Drive' }]), []))).toEqual({
      status: 400,
      error: 'segment "first-drive" is the slug of a post: choose another segment',
    });
    const automobiles = node(seed, 'Automobiles');
    expect(await failure(settings.update(seed, [{ from: carTwo.id, to: automobiles.id }]))).toEqual({
      status: 400,
      error: 'moves: Garage → Automobiles has levels under it; move posts to one of them',
    });
    expect(await failure(settings.update(seed, [{ from: 'nowhere', to: carOne.id }]))).toEqual({
      status: 400,
      error: 'moves: no node "nowhere" in the current tree',
    });
    expect(store.rows).toEqual(before);
  });

  it("takes another replica's change as soon as it is announced", async () => {
    store.storeElsewhere({ ...seed, title: 'Renamed elsewhere' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settings.current().title).toBe('Renamed elsewhere');
    expect(settings.currentVersion()).toBe(2);
  });
});
