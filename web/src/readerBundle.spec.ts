import { readFileSync, readdirSync } from 'node:fs';

/*
 * The script a reader downloads, read from the build `npm test` makes before its tests
 * (web/dist, with the .br twins web/precompress.ts writes).
 */
const dist = new URL('../dist/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dist));
const entryName = /data-app="\/(assets\/index-[^"]+\.js)"/.exec(read('index.html').toString())?.[1];
const entry = entryName ? read(entryName).toString() : '';
const brotliSize = (name: string) => read(`${name}.br`).length;

/**
 * The reader's script before server rendering (1b42f43), brotli as the gateway sends it: issue
 * 18's ceiling for the JavaScript of a reader's first visit, a post page with pictures included.
 */
const FIRST_VISIT_BUDGET = 95_868;

describe("the reader's script", () => {
  test('is one file: the entry imports no other chunk before it can run', () => {
    expect(entryName).toBeDefined();
    expect(entry).not.toMatch(/(?:^|[;}])import\s*(?:\{[^}]*\}\s*from\s*)?["']\.\//m);
  });

  test("holds none of react-router's unused components (Link, NavLink and Form, with their prefetching)", () => {
    // Strings only those components carry: the Link's discovery attribute, a form submitter's
    // types, and framework mode's single-fetch data URL.
    for (const marker of ['data-discover', 'submit|image', '/_root.']) expect(entry).not.toContain(marker);
    // The router itself is there.
    expect(entry).toContain('popstate');
  });

  test('a post page with pictures (the entry and the carousel) stays within the budget', () => {
    const carousel = readdirSync(new URL('assets/', dist)).find((name) =>
      /^MediaCarousel-.*\.js$/.test(name),
    );
    expect(carousel).toBeDefined();
    const total = brotliSize(entryName!) + brotliSize(`assets/${carousel}`);
    expect(total).toBeLessThanOrEqual(FIRST_VISIT_BUDGET);
  });
});
