import type { RecordedView } from '@blog/contracts';
import type { SiteSettings } from '../src/site/site-settings.js';
import { StatsService } from '../src/stats/stats.service.js';
import { MemoryVisitorStore } from '../src/stats/visitor-store.js';
import { InMemoryStatsRepository } from './support/in-memory-stats.repository.js';
import { garageSite } from './support/garage-site.js';

/** How views become daily totals and the Stats tab's report, against an in-memory repository and visitor store. */
describe('stats rules', () => {
  const site = garageSite();
  const day = new Date().toISOString().slice(0, 10);
  const drivePath = '/garage/automobiles/car-one/first-drive';
  let store: InMemoryStatsRepository;
  let stats: StatsService;
  let batch = 0;
  const view = (over: Partial<RecordedView>): RecordedView => ({
    at: new Date().toISOString(),
    path: '/',
    kind: 'page',
    visitor: 'a'.repeat(16),
    referrerHost: null,
    device: 'desktop',
    country: null,
    ...over,
  });
  const drive = (over: Partial<RecordedView> = {}) =>
    view({ path: drivePath, kind: 'post', slug: 'first-drive', ...over });
  const record = (
    views: RecordedView[],
    id = `00000000-0000-4000-8000-${String(++batch).padStart(12, '0')}`,
  ) => stats.record({ id, views });

  beforeEach(() => {
    store = new InMemoryStatsRepository();
    store.posts = [
      {
        id: 1,
        slug: 'first-drive',
        title: 'First drive',
        labels: ['Garage', 'Automobiles', 'Car One'],
        visible: true,
      },
      { id: 2, slug: 'draft', title: 'Draft', labels: ['Garage', 'Automobiles', 'Car One'], visible: false },
    ];
    stats = new StatsService(store, { current: () => site } as SiteSettings, new MemoryVisitorStore());
  });
  afterEach(() => stats.onApplicationShutdown());

  it("adds a batch's views to the site's and each path's day, a visitor once a day in each, and a hidden post's nothing", async () => {
    const b = 'b'.repeat(16);
    expect(
      await record([
        drive({ referrerHost: 'search.example', country: 'DE' }),
        drive(),
        drive({ visitor: b, device: 'phone' }),
        view({}),
        view({ path: '/garage/automobiles/car-one/draft', kind: 'post', slug: 'draft' }),
      ]),
    ).toEqual({ recorded: 4 });
    expect([...store.rows.days.values()].sort((x, y) => (x.path < y.path ? -1 : 1))).toEqual([
      { day, path: '', postId: null, views: 4, visitors: 2 },
      { day, path: '/', postId: null, views: 1, visitors: 1 },
      { day, path: drivePath, postId: 1, views: 3, visitors: 2 },
    ]);
    // The site's facets and the post's own.
    const facets = [...store.rows.facets.values()].map(
      (f) => `${f.path || 'site'} ${f.kind} ${f.value} ${f.views}`,
    );
    expect(facets.sort()).toEqual(
      [
        'site referrer search.example 1',
        'site device desktop 3',
        'site device phone 1',
        'site country DE 1',
        `${drivePath} referrer search.example 1`,
        `${drivePath} device desktop 2`,
        `${drivePath} device phone 1`,
        `${drivePath} country DE 1`,
      ].sort(),
    );

    // The same visitors later that day add views, not visitors.
    await record([drive(), drive({ visitor: b })]);
    expect(store.rows.days.get(`${day}\n`)).toMatchObject({ views: 6, visitors: 2 });
    expect(store.rows.days.get(`${day}\n${drivePath}`)).toMatchObject({ views: 5, visitors: 2 });
  });

  it('counts a retried batch once, and an empty or all-hidden batch as nothing', async () => {
    const id = '00000000-0000-4000-8000-00000000abcd';
    expect(await record([drive()], id)).toEqual({ recorded: 1 });
    expect(await record([drive()], id)).toEqual({ recorded: 0 });
    expect(await record([])).toEqual({ recorded: 0 });
    expect(await record([view({ kind: 'post', slug: 'draft', path: '/x/draft' })])).toEqual({ recorded: 0 });
    expect(store.rows.days.get(`${day}\n`)).toMatchObject({ views: 1, visitors: 1 });
  });

  it("reports every day of the range, the top posts with their URLs, each device class and the last minutes' visitors", async () => {
    await record([
      drive({ referrerHost: 'search.example', country: 'DE' }),
      drive({ visitor: 'c'.repeat(16), device: 'phone' }),
      view({ visitor: 'd'.repeat(16) }),
    ]);
    const from = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const report = await stats.stats({ from, to: day });
    expect(report.days).toHaveLength(3);
    expect(report.days[0]).toEqual({ date: from, views: 0, visitors: 0 });
    expect(report.days[2]).toEqual({ date: day, views: 3, visitors: 3 });
    expect(report.topPosts).toEqual([
      { postId: 1, title: 'First drive', url: drivePath, views: 2, visitors: 2 },
    ]);
    expect(report.referrers).toEqual([{ host: 'search.example', views: 1 }]);
    expect(report.devices).toEqual([
      { device: 'phone', views: 1 },
      { device: 'tablet', views: 0 },
      { device: 'desktop', views: 2 },
    ]);
    expect(report.countries).toEqual([{ country: 'DE', views: 1 }]);
    expect(report.live).toBe(3);

    const post = await stats.stats({ from: day, to: day, postId: 1 });
    expect(post.days).toEqual([{ date: day, views: 2, visitors: 2 }]);
    expect(post.devices.find((d) => d.device === 'desktop')!.views).toBe(1);
    expect(post.live).toBe(2);

    expect(await stats.recentViews([1, 2])).toEqual({ 1: 2 });
    expect(await stats.recentViews([])).toEqual({});
  });
});
