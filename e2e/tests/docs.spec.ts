/**
 * The docs in the repository stay true to it: docs/api.md has one heading for each route the
 * gateway answers and none for a route it does not, and every relative link of README.md and
 * docs/*.md reaches a file (and, with a #fragment, a heading of that file). Nothing outside the
 * repository is linked or named.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  gatewayRoutes,
  headingAnchor,
  routeHeading,
  routeTable,
  withRouteTable,
} from '../../scripts/docs-api.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = join(ROOT, 'docs');
const pages = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name)),
];

/** The text of a Markdown file without its fenced code blocks (their `#` lines are not headings). */
function prose(file: string): string {
  return readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
}

/** The anchors GitHub gives a file's headings, repeats numbered (`-1`, `-2`). */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of prose(file).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor(text!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every `[text](target)` and `![alt](target)` of a file, outside code. */
function linksOf(file: string): string[] {
  const text = prose(file).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

describe('docs/api.md', () => {
  const routes = gatewayRoutes(ROOT);
  const documented = [...prose(join(DOCS, 'api.md')).matchAll(/^### ([A-Z]+ \/\S*)\s*$/gm)].map(
    (match) => match[1]!,
  );

  it('the gateway has routes to document (the controllers were read)', () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.map(routeHeading)).toEqual(
      expect.arrayContaining(['GET /api/posts', 'POST /api/auth/login']),
    );
  });

  it('documents every route the gateway answers', () => {
    const missing = routes.map(routeHeading).filter((heading) => !documented.includes(heading));
    expect(missing).toEqual([]);
  });

  it('holds the route table as `node scripts/docs-api.mjs --write` makes it from the controllers now', () => {
    const text = readFileSync(join(DOCS, 'api.md'), 'utf8');
    expect(withRouteTable(text, routeTable(routes))).toBe(text);
  });

  it('documents no route the gateway does not answer, and each once', () => {
    const known = new Set(routes.map(routeHeading));
    expect(documented.filter((heading) => !known.has(heading))).toEqual([]);
    expect(documented.filter((heading, i) => documented.indexOf(heading) !== i)).toEqual([]);
  });
});

describe('links in README.md and docs/', () => {
  it.each(pages.map((file) => [relative(ROOT, file), file]))(
    '%s links only to files and headings that exist',
    (_, file) => {
      const broken: string[] = [];
      for (const link of linksOf(file)) {
        if (/^[a-z]+:/i.test(link)) continue; // http(s) and mailto: outside this check
        const [path, fragment] = link.split('#') as [string, string | undefined];
        const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        if (!target.startsWith(ROOT + '/') && target !== ROOT)
          broken.push(`${link} (outside the repository)`);
        else if (!existsSync(target)) broken.push(`${link} (no such file)`);
        else if (fragment && target.endsWith('.md') && !anchorsOf(target).has(fragment))
          broken.push(`${link} (no such heading)`);
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(pages.map((file) => [relative(ROOT, file), file]))(
    '%s names only repository paths that exist',
    (_, file) => {
      const named = [
        ...readFileSync(file, 'utf8').matchAll(
          /`((?:libs|gateway|services|web|scripts|e2e|infra|config|docs)\/[^`\s<>{}*…]*)`/g,
        ),
      ].map((match) => match[1]!);
      expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
    },
  );

  it('name nothing outside the repository', () => {
    const outside = pages.filter((file) =>
      /\.\.\/shared|SPEC\.md|ARCHITECTURE\.md/.test(readFileSync(file, 'utf8')),
    );
    expect(outside.map((file) => relative(ROOT, file))).toEqual([]);
  });
});
