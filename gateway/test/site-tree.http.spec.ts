/**
 * Editing the category tree from the dashboard, through the real gateway and services:
 * posts keep their place through renames (they hold the node's id), old URLs answer 301
 * to the new ones (straight to the last after several renames), a node posts use cannot be
 * removed (409 with the count) unless `moves` sends them elsewhere, and the app shell, the
 * canonical links and the sitemap follow the tree.
 */
import type { PostView, SiteConfig } from '@blog/contracts';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fields, multipart } from './support/media-fixtures.js';
import {
  ADMIN,
  api,
  loginAs,
  runAdminCommand,
  startTestStack,
  type TestStack,
} from './support/test-stack.js';

const ROOT = new URL('../..', import.meta.url).pathname;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SHELL =
  '<!doctype html><html><head><title>x</title></head><body><div id="root"></div><script type="module" src="/assets/a.js"></script></body></html>';

describe('the category tree from the dashboard', () => {
  let stack: TestStack;
  let admin: string;
  const site = async () => (await api(stack, '/api/site')).json as unknown as SiteConfig;
  const save = (body: unknown) => api(stack, '/api/admin/site', { method: 'PUT', body, token: admin });
  const page = (path: string) => fetch(`${stack.baseUrl}${path}`, { redirect: 'manual' });
  const createPost = async (title: string, place: Record<string, string>) => {
    const { body, contentType } = multipart(fields({ title, content: 'Body.', ...place }));
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    return (await response.json()) as PostView;
  };
  /** A copy of the tree with one node changed (found by its labels). */
  const edit = (current: SiteConfig, labels: string[], change: (node: Json) => Json | null): SiteConfig => {
    const copy = structuredClone(current) as Json;
    const lists = [copy.categories, ...labels.slice(0, -1).map(() => null)];
    let list: Json[] = copy.categories;
    for (let depth = 0; depth < labels.length; depth++) {
      const index = list.findIndex((node) => node.label === labels[depth]);
      if (index < 0) throw new Error(`no ${labels.slice(0, depth + 1).join(' / ')}`);
      if (depth === labels.length - 1) {
        const next = change(list[index]!);
        if (next) list[index] = next;
        else list.splice(index, 1);
      } else list = list[index]!.subcategories ?? list[index]!.entries;
    }
    void lists;
    return copy as SiteConfig;
  };

  beforeAll(async () => {
    const dist = await mkdtemp(join(tmpdir(), 'tree-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), SHELL);
    await writeFile(join(dist, 'assets/a.js'), '');
    stack = await startTestStack({ WEB_DIST: dist, SITE_URL: 'https://blog.example/' });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
  });
  afterAll(() => stack?.stop());

  it('gives every node an id, kept across saves', async () => {
    const before = await site();
    const ids = before.categories.flatMap((c) => [
      c.id,
      ...c.subcategories.flatMap((s) => [s.id, ...s.entries.map((e) => e.id)]),
    ]);
    expect(ids.every((id) => /^[a-z0-9][a-z0-9-]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const saved = (await save(before)).json as unknown as SiteConfig;
    expect(saved).toEqual(before);
  });

  it('renames a model and its segment: its posts keep their place; the old URLs answer 301, through a chain', async () => {
    const post = await createPost('Oil change', {
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car One',
    });
    expect(post.url).toBe('/garage/automobiles/car-one/oil-change');
    const id = post.id;

    // Car One → Red Roadster (segment derived), then → Blue Coupe with its own segment.
    let saved = await save(
      edit(await site(), ['Garage', 'Automobiles', 'Car One'], (n) => ({
        ...n,
        label: 'Red Roadster',
        segment: undefined,
      })),
    );
    expect(saved.status).toBe(200);
    let read = (await api(stack, `/api/posts/${id}`)).json as unknown as PostView;
    expect(read).toMatchObject({
      submenu2: 'Red Roadster',
      url: '/garage/automobiles/red-roadster/oil-change',
    });
    saved = await save(
      edit(await site(), ['Garage', 'Automobiles', 'Red Roadster'], (n) => ({
        ...n,
        label: 'Blue Coupe',
        segment: 'coupe',
      })),
    );
    expect(saved.status).toBe(200);
    read = (await api(stack, `/api/posts/${id}`)).json as unknown as PostView;
    expect(read).toMatchObject({ category: 'Garage', submenu1: 'Automobiles', submenu2: 'Blue Coupe' });
    expect(read.url).toBe('/garage/automobiles/coupe/oil-change');
    // The listing filters by the new label find it.
    const listed = (await api(stack, '/api/posts?category=Garage&submenu1=Automobiles&submenu2=Blue%20Coupe'))
      .json as unknown as PostView[];
    expect(listed.map((p) => p.id)).toContain(id);

    // Both old URLs go straight to the newest (no chain of hops), the model page and the post.
    for (const [from, to] of [
      ['/garage/automobiles/car-one', '/garage/automobiles/coupe'],
      ['/garage/automobiles/red-roadster', '/garage/automobiles/coupe'],
      ['/garage/automobiles/car-one/oil-change', '/garage/automobiles/coupe/oil-change'],
      ['/garage/automobiles/red-roadster/oil-change', '/garage/automobiles/coupe/oil-change'],
    ]) {
      const answer = await page(from!);
      expect([from, answer.status, answer.headers.get('location')]).toEqual([from, 301, to]);
    }
    expect((await page('/garage/automobiles/coupe/oil-change')).status).toBe(200);
    const html = await (await page('/garage/automobiles/coupe/oil-change')).text();
    expect(html).toContain(
      '<link rel="canonical" href="https://blog.example/garage/automobiles/coupe/oil-change"',
    );
    const sitemap = await (await page('/sitemap.xml')).text();
    expect(sitemap).toContain('/garage/automobiles/coupe/oil-change');
    expect(sitemap).not.toContain('car-one');
    expect(sitemap).not.toContain('red-roadster');
  });

  it('renames a category segment: every page under it follows (category, sub-category, model, post)', async () => {
    const before = await site();
    const saved = await save(
      edit(before, ['Garage'], (n) => ({ ...n, label: 'Workshop', segment: 'workshop' })),
    );
    expect(saved.status).toBe(200);
    for (const [from, to] of [
      ['/garage', '/workshop'],
      ['/garage/motorcycles', '/workshop/motorcycles'],
      ['/garage/automobiles/coupe/oil-change', '/workshop/automobiles/coupe/oil-change'],
      ['/garage/automobiles/car-one/oil-change', '/workshop/automobiles/coupe/oil-change'],
    ]) {
      const answer = await page(from!);
      expect([from, answer.status, answer.headers.get('location')]).toEqual([from, 301, to]);
    }
    const posts = (await api(stack, '/api/posts?category=Workshop')).json as unknown as PostView[];
    expect(posts.map((p) => p.title)).toContain('Oil change');
    // Renamed back: /garage is live again and no longer redirects; /workshop now does.
    expect((await save(before)).status).toBe(200);
    expect((await page('/garage')).status).toBe(200);
    expect((await page('/workshop')).headers.get('location')).toBe('/garage');
  });

  it('refuses to remove a node its posts use (409 with the count) and changes nothing; moves send them elsewhere', async () => {
    await createPost('Second oil change', {
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Blue Coupe',
    });
    const before = await site();
    const without = edit(before, ['Garage', 'Automobiles', 'Blue Coupe'], () => null);
    const refused = await save(without);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toBe(
      '2 posts use Garage → Automobiles → Blue Coupe: move them to another place (moves) before removing it',
    );
    expect(await site()).toEqual(before);

    // Removing the whole sub-category is refused the same way.
    expect((await save(edit(before, ['Garage', 'Automobiles'], () => null))).status).toBe(409);
    // A move to a node that does not exist, or that has levels under it, is a 400.
    expect(
      (await save({ ...without, moves: [{ from: 'Garage/Automobiles/Blue Coupe', to: 'Nowhere' }] })).status,
    ).toBe(400);
    expect(
      (
        await save({
          ...without,
          moves: [{ from: 'Garage/Automobiles/Blue Coupe', to: 'Garage/Automobiles' }],
        })
      ).status,
    ).toBe(400);

    const moved = await save({
      ...without,
      moves: [{ from: 'garage / automobiles / blue coupe', to: 'Garage / Automobiles / Car Two' }],
    });
    expect(moved.status).toBe(200);
    const posts = (await api(stack, '/api/posts?category=Garage&submenu1=Automobiles&submenu2=Car%20Two'))
      .json as unknown as PostView[];
    expect(posts.map((p) => p.title).sort()).toEqual(['Oil change', 'Second oil change']);
    expect(posts[0]!.url).toMatch(/^\/garage\/automobiles\/car-two\//);
    // The old post URL finds the post where it is now.
    const answer = await page('/garage/automobiles/coupe/oil-change');
    expect([answer.status, answer.headers.get('location')]).toEqual([
      301,
      '/garage/automobiles/car-two/oil-change',
    ]);
  });

  it('adds, reorders and removes unused nodes; new ones get ids; the order shows in GET', async () => {
    const before = await site();
    const withNew = structuredClone(before) as Json;
    withNew.categories.push({
      label: 'Travel',
      intro: 'Trips.',
      emptyText: 'No trips yet.',
      subcategories: [
        { label: 'General', entries: [] },
        { label: 'Norway', segment: 'norway', entries: [{ label: 'Lofoten', underConstruction: true }] },
      ],
    });
    withNew.categories.reverse();
    const saved = (await save(withNew)).json as unknown as SiteConfig;
    expect(saved.categories[0]!.label).toBe('Travel');
    expect(saved.categories[0]!.id).toMatch(/^n[0-9a-f]{11}$/);
    expect(saved.categories[0]!.subcategories[1]!.entries[0]).toMatchObject({
      label: 'Lofoten',
      segment: 'lofoten',
      underConstruction: true,
    });
    expect((await page('/travel/norway/lofoten')).status).toBe(200);
    const removed = structuredClone(saved) as Json;
    removed.categories.shift();
    expect((await save(removed)).status).toBe(200);
    expect((await page('/travel')).status).toBe(404);
  });

  it('npm run admin -- reset-site: a file with the ids keeps posts on their nodes; the shipped file places them by label; the running site shows it', async () => {
    const brakes = await createPost('Brake pads', {
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car Three',
    });
    const renamed = edit(await site(), ['Garage', 'Automobiles', 'Car Three'], (n) => ({
      ...n,
      label: 'Green Wagon',
      segment: 'wagon',
    }));
    expect((await save(renamed)).status).toBe(200);
    const tyres = await createPost('Winter tyres', {
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car Four',
    });
    // The gateway sees the reset within SITE_CACHE_MS (0.4-0.5 s on an idle machine); 10 s is 20
    // times that, so a loaded machine does not fail it.
    const untilShown = async (check: (s: SiteConfig) => boolean) => {
      for (const deadline = Date.now() + 10_000; !check(await site());) {
        if (Date.now() > deadline) throw new Error('the reset site did not show within 10 s');
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const url = async (id: number) =>
      ((await api(stack, `/api/posts/${id}`)).json as unknown as PostView).url;

    // A file saved from GET /api/site (ids included), with a new title.
    const saved = join(stack.env.DATA_DIR!, 'site-saved.json');
    await writeFile(saved, JSON.stringify({ ...(await site()), title: 'Saved copy' }));
    const fromCopy = await runAdminCommand(stack, ['reset-site', saved]);
    expect(fromCopy).toMatchObject({ code: 0, stderr: '' });
    expect(fromCopy.stdout).toContain('Every post has its place in the tree.');
    await untilShown((s) => s.title === 'Saved copy');
    expect(await url(brakes.id)).toBe('/garage/automobiles/wagon/brake-pads');

    // The shipped file: no ids, so posts are placed by label; Green Wagon is not in it.
    const file = JSON.parse(await readFile(join(ROOT, 'config/site.json'), 'utf8')) as SiteConfig;
    const shipped = await runAdminCommand(stack, ['reset-site', join(ROOT, 'config/site.json')]);
    expect(shipped).toMatchObject({ code: 0, stderr: '' });
    expect(shipped.stdout).toMatch(/\d+ post\(s\) have labels the file/);
    await untilShown((s) => s.title === file.title);
    expect((await site()).categories.map((c) => c.label)).toEqual(file.categories.map((c) => c.label));
    expect(await url(tyres.id)).toBe('/garage/automobiles/car-four/winter-tyres');
    // The dashboard's redirects went with the tree they belonged to.
    expect((await page('/garage/automobiles/car-four/winter-tyres')).status).toBe(200);
    expect((await page('/garage/automobiles/coupe/oil-change')).status).toBe(404);
    expect((await runAdminCommand(stack, ['reset-site', '/nowhere/site.json'])).stderr).toContain(
      'Cannot read the site config /nowhere/site.json',
    );
    // 2.7 s on an idle machine (three admin commands, each a Node process); room for both waits.
  }, 60_000);
});
