import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { AdminNav } from './AdminNav';
import type { PlaceEntry } from './placeRules';

const load = () => Promise.resolve(0);
const places: PlaceEntry[] = [
  { id: 'posts', label: 'Posts', group: 'content' },
  { id: 'comments', label: 'Comments', group: 'content', badge: { load, describe: (n) => `${n} pending` } },
  {
    id: 'notifications',
    label: 'Notifications',
    group: 'fediverse',
    badge: { load, describe: (n) => `${n} unread` },
  },
  { id: 'stats', label: 'Stats', group: 'stats' },
];

function render(current: string, counts: Record<string, number>): string {
  return renderToStaticMarkup(
    h(
      MemoryRouter,
      { initialEntries: ['/admin'] },
      h(AdminNav, {
        places,
        current: places.find((p) => p.id === current)!,
        counts,
        onChosenFromMenu: () => {},
      }),
    ),
  );
}

/** The name a screen reader reads for each link: its aria-label, else its text without the hidden parts. */
function linkNames(html: string): string[] {
  return [...html.matchAll(/<a ([^>]*)>(.*?)<\/a>/g)].map(
    (m) =>
      m[1]!.match(/aria-label="([^"]+)"/)?.[1] ??
      m[2]!.replace(/<span[^>]*aria-hidden="true"[^>]*>.*?<\/span>/g, '').replace(/<[^>]+>/g, ''),
  );
}

describe("the dashboard's navigation (docs/product.md, the Admin Dashboard)", () => {
  test('one named navigation, a disclosure button naming the open place, a heading per group of several', () => {
    const html = render('comments', {});
    expect(html.match(/<nav [^>]*>/)![0]).toContain('aria-label="Dashboard"');
    const button = html.match(/<button [^>]*>.*?<\/button>/)![0];
    expect(button).toContain('aria-expanded="false"');
    const controls = button.match(/aria-controls="([^"]+)"/)![1];
    expect(html).toContain(`id="${controls}"`);
    expect(button.replace(/<[^>]+>/g, '')).toBe('Dashboard menu: Comments');
    // Content and Fediverse head their lists; Stats, one place named like its group, needs none.
    expect([...html.matchAll(/<h2 id="([^"]+)"[^>]*>(.*?)<\/h2>/g)].map((m) => m[2])).toEqual([
      'Content',
      'Fediverse',
    ]);
    for (const [, id] of html.matchAll(/<h2 id="([^"]+)"/g))
      expect(html).toContain(`aria-labelledby="${id}"`);
  });

  test('the open place alone is marked current; each link is its place address', () => {
    const html = render('comments', {});
    const links = [...html.matchAll(/<a [^>]*>/g)].map((m) => m[0]);
    expect(links.map((a) => a.match(/href="([^"]+)"/)![1])).toEqual([
      '/admin',
      '/admin?tab=comments',
      '/admin?tab=notifications',
      '/admin?tab=stats',
    ]);
    expect(links.filter((a) => a.includes('aria-current="page"'))).toEqual([
      expect.stringContaining('href="/admin?tab=comments"'),
    ]);
  });

  test('a badge shows its number and reads as "Notifications, 3 unread"; no count, no badge', () => {
    const html = render('posts', { notifications: 3, comments: 0 });
    expect(linkNames(html)).toEqual(['Posts', 'Comments', 'Notifications, 3 unread', 'Stats']);
    expect(html).toContain('<span class="admin-nav-badge" aria-hidden="true">3</span>');
    expect(html.match(/admin-nav-badge/g)).toHaveLength(1);
    expect(linkNames(render('posts', { notifications: 250 }))[2]).toBe('Notifications, 250 unread');
    expect(render('posts', { notifications: 250 })).toContain('>99+</span>');
  });
});
