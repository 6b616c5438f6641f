#!/usr/bin/env node
// Seeds posts straight into the posts schema (for benchmarks and demos): N posts spread over
// the category tree, with titles, tags and a few sentences of text, dated over the past years.
// Usage: DATABASE_URL=postgres://... node scripts/seed.mjs 10000
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOPICAL = (
  'engine wheel tyre chain brake garage road trip coffee espresso bread sourdough recipe kitchen reef coral ' +
  'aquarium fish tank filter pump light project wood shed solar panel laptop keyboard circuit sensor battery ' +
  'lake river dawn boat race track lap helmet friend partner dinner garden summer winter rain snow mountain ' +
  'camera lens photo weekend holiday repair paint oil clutch gearbox exhaust saddle pedal frame spoke sprocket'
).split(' ');

/**
 * A vocabulary like real prose: the topical words plus a few thousand made-up ones, drawn
 * log-uniformly (close to Zipf's law), so a search term matches a realistic share of posts.
 */
const SYLLABLES =
  'ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu'.split(
    ' ',
  );
const MADE_UP = [];
for (const a of SYLLABLES)
  for (const b of SYLLABLES) for (const c of ['n', 'r', 'l', 's']) MADE_UP.push(a + b + c);
export const WORDS = [...TOPICAL, ...MADE_UP.filter((_, i) => i % 3 === 0)];

export function placements(site) {
  const list = [];
  for (const category of site.categories) {
    for (const sub of category.subcategories) {
      const entries = sub.entries?.length ? sub.entries : [null];
      for (const entry of entries) list.push([category.label, sub.label, entry ? entry.label : null]);
    }
  }
  return list;
}

/** Inserts `count` posts in batches inside the database; returns the seconds it took. */
export async function seedPosts(databaseUrl, count, { batch = 5000 } = {}) {
  const site = JSON.parse(readFileSync(join(root, 'config/site.json'), 'utf8'));
  const where = placements(site);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    const { rows } = await client.query('SELECT coalesce(max(id), 0) AS max FROM posts.posts');
    const offset = Number(rows[0].max);
    for (let from = 1; from <= count; from += batch) {
      const to = Math.min(count, from + batch - 1);
      await client.query(
        // Plain words, so the rendered fields are simple: one paragraph, the text itself, its
        // excerpt by the excerpt rule (300 characters, cut at a word, '...'), one minute's read.
        `INSERT INTO posts.posts (title, content, content_html, content_text, excerpt, reading_minutes,
                                  slug, category, submenu1, submenu2, tags, created_at, updated_at)
         SELECT title, body, '<p>' || body || E'</p>\n', body,
           CASE WHEN length(body) <= 300 THEN body
                ELSE regexp_replace(
                       CASE WHEN substr(body, 301, 1) = ' ' THEN left(body, 300)
                            ELSE regexp_replace(left(body, 300), '\\s+\\S*$', '') END,
                       '[\\s.,;:!?]+$', '') || '...' END,
           greatest(1, ceil(array_length(regexp_split_to_array(body, '\\s+'), 1) / 230.0)),
           slug, category, submenu1, submenu2, tags, created_at, updated_at
         FROM (SELECT
           initcap(($1::text[])[1 + (g * 7) % 80]) || ' ' || ($1::text[])[1 + (g * 13) % 80] || ' notes ' || g AS title,
           array_to_string(ARRAY(SELECT ($1::text[])[floor(exp(random() * ln(cardinality($1::text[]))))::int]
                                  FROM generate_series(1, 70) WHERE g > 0), ' ') || '.' AS body,
           'seed-' || ($4::int + g) AS slug,
           ($2::text[])[1 + g % cardinality($2::text[])] AS category,
           ($3::text[])[1 + g % cardinality($3::text[])] AS submenu1,
           nullif(($5::text[])[1 + g % cardinality($5::text[])], '') AS submenu2,
           ARRAY[($1::text[])[1 + (g * 3) % 80], ($1::text[])[1 + (g * 11) % 80]] AS tags,
           now() - (g * interval '37 minutes') AS created_at,
           now() AS updated_at
         FROM generate_series($6::int, $7::int) AS g) AS seeded`,
        [
          WORDS,
          where.map((w) => w[0]),
          where.map((w) => w[1]),
          offset,
          where.map((w) => w[2] ?? ''),
          from,
          to,
        ],
      );
    }
    // Settle the table (visibility map, statistics, dirty pages flushed) so whatever runs next
    // measures the blog, not autovacuum and a checkpoint catching up with the bulk insert.
    await client.query('VACUUM (ANALYZE) posts.posts');
    await client.query('CHECKPOINT').catch(() => undefined); // needs superuser; fine without
  } finally {
    await client.end();
  }
  return (Date.now() - started) / 1000;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = Number(process.argv[2] ?? 1000);
  if (!process.env.DATABASE_URL) {
    console.error('Set DATABASE_URL to the database the posts service uses.');
    process.exit(1);
  }
  const seconds = await seedPosts(process.env.DATABASE_URL, count);
  console.log(`seeded ${count} posts in ${seconds.toFixed(1)} s`);
}
