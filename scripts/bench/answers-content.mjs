// The answers check's content (compare-answers.mjs): both stacks get the same posts, writes,
// renamed sub-category, old paths and dates, so their answers can be compared byte for byte.
import pg from 'pg';
import { importWxr } from './answers-import.mjs';
import { signInToken } from './measure.mjs';
import { startSeedableStack } from './stack.mjs';

export const ADMIN = { username: 'answersadmin', password: 'answers-password-123' };
/** Both stacks name themselves the same: absolute links then need no rewriting. */
export const SITE_URL = 'https://blog.example';
export const SEEDED = 70; // enough for three home pages (15 a page) and a second Garage page (30)
/** The fixed clock: every post's date is set from it, so neither "now" shows in an answer. */
export const CLOCK = '2026-11-01T09:00:00Z';
export const SCHEDULED_AT = '2099-06-01T08:00:00Z';

/** Posts both stacks start with: the base's seeder, its rows copied as they are to this build. */
export async function copyPosts(fromUrl, toUrl) {
  const from = new pg.Client({ connectionString: fromUrl });
  const to = new pg.Client({ connectionString: toUrl });
  await from.connect();
  await to.connect();
  try {
    const columnsOf = async (client) =>
      (
        await client.query(
          `SELECT column_name FROM information_schema.columns
            WHERE table_schema = 'posts' AND table_name = 'posts' AND is_generated = 'NEVER'`,
        )
      ).rows.map((r) => r.column_name);
    const target = new Set(await columnsOf(to));
    const columns = (await columnsOf(from)).filter((c) => target.has(c)).map((c) => `"${c}"`);
    const { rows } = await from.query(`SELECT ${columns.join(', ')} FROM posts.posts ORDER BY id`);
    await to.query(
      // The ids too (an identity column), so both stacks' posts have the same ids.
      `INSERT INTO posts.posts (${columns.join(', ')}) OVERRIDING SYSTEM VALUE
       SELECT ${columns.join(', ')} FROM json_populate_recordset(null::posts.posts, $1::json)`,
      [JSON.stringify(rows)],
    );
    await to.query(
      `SELECT setval(pg_get_serial_sequence('posts.posts', 'id'), (SELECT max(id) FROM posts.posts))`,
    );
    await to.query('VACUUM (ANALYZE) posts.posts');
  } finally {
    await from.end();
    await to.end();
  }
}

async function api(baseUrl, token, method, path, body) {
  const isForm = body instanceof FormData;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body && !isForm ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? (isForm ? body : JSON.stringify(body)) : undefined,
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

function postForm(fields, photos) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  photos.forEach((photo, i) =>
    form.append('files', new Blob([photo], { type: 'image/jpeg' }), `photo-${i}.jpg`),
  );
  return form;
}

/**
 * Two camera-like JPEGs (1600x1200, a gradient each, EXIF with a GPS position), made once and
 * uploaded to both stacks as the same bytes: what the media worker makes from them is compared.
 */
export async function makePhotos() {
  const { default: sharp } = await import('sharp');
  const photos = [];
  for (const tint of [40, 160]) {
    const width = 1600;
    const height = 1200;
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3;
        raw[i] = (x * 255) / width;
        raw[i + 1] = (y * 255) / height;
        raw[i + 2] = (tint + ((x ^ y) & 63)) & 255;
      }
    photos.push(
      await sharp(raw, { raw: { width, height, channels: 3 } })
        .jpeg({ quality: 90 })
        .withExif({
          IFD0: { Make: 'AnswersCam' },
          IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' },
        })
        .toBuffer(),
    );
  }
  return photos;
}

/** Until every written post's media are made (the worker runs after the upload's answer). */
async function mediaReady(stack, token, posts) {
  const deadline = Date.now() + 120_000;
  for (const post of Object.values(posts)) {
    for (;;) {
      const now = await api(stack.baseUrl, token, 'GET', `/api/posts/${post.id}`);
      if (now.mediaReady) break;
      if (now.media.some((m) => m.status === 'failed'))
        throw new Error(`post ${post.id}: a media item failed`);
      if (Date.now() > deadline) throw new Error(`post ${post.id}: media not ready in 2 minutes`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Posts written through the API, one per kind of page a post can make. */
const WRITTEN = [
  {
    key: 'roadster',
    title: 'Roadster weekend',
    content:
      '## Saturday\n\nTwo weekends with the **roadster**: new [tyres](https://example.com/tyres) and a ' +
      'leaking `clutch`.\n\n- brakes bled\n- oil changed\n\n```\ntorque 110 Nm\n```\n\n' +
      '<script>alert(1)</script><b onclick="steal()">bold</b> <img src=x onerror=alert(2)>\n\n' +
      'A line with an em dash — and “quotes”.',
    category: 'Garage',
    submenu1: 'Automobiles',
    submenu2: 'Car One',
    tags: 'Cars, weekend',
    youtubeUrls: JSON.stringify(['https://www.youtube.com/watch?v=dQw4w9WgXcQ']),
  },
  {
    key: 'sourdough',
    title: 'Sourdough starter',
    content: 'Flour, water, **patience**.\n\n'.repeat(12),
    category: 'Food & Bev',
    submenu1: 'Cooking',
    tags: 'bread, Recipe',
  },
  {
    key: 'accents',
    title: 'Café crème à Paris',
    content: 'Un café, deux crèmes.',
    category: 'More',
    tags: 'travel',
  },
  {
    key: 'bike',
    title: 'Chain and sprockets',
    content: 'A new chain.',
    category: 'Garage',
    submenu1: 'Bicycles',
  },
  { key: 'draft', title: 'Unfinished draft', content: 'Not yet.', category: 'Projects', status: 'draft' },
  {
    key: 'photos',
    title: 'Shed photos',
    content: 'The shed, before and after.',
    category: 'Projects',
    tags: 'shed',
    mainImageIndex: '1',
    photos: true,
  },
  {
    key: 'scheduled',
    title: 'Next summer trip',
    content: 'Later.',
    category: 'Activities',
    submenu1: 'Fishing',
  },
];

/** The same writes on a stack, in the same order, so ids and slugs match. */
export async function writeContent(stack, photos) {
  const token = await signInToken(stack.baseUrl, ADMIN);
  const posts = {};
  for (const { key, photos: withPhotos, ...fields } of WRITTEN)
    posts[key] = await api(
      stack.baseUrl,
      token,
      'POST',
      '/api/posts',
      postForm(fields, withPhotos ? photos : []),
    );
  await mediaReady(stack, token, posts);
  // A renamed sub-category: its old URLs answer 301 to the new ones.
  const site = await api(stack.baseUrl, token, 'GET', '/api/site');
  const garage = site.categories.find((c) => c.label === 'Garage');
  const bicycles = garage.subcategories.find((s) => s.label === 'Bicycles');
  bicycles.label = 'Push Bikes';
  delete bicycles.segment;
  await api(stack.baseUrl, token, 'PUT', '/api/admin/site', site);
  // Read again: the rename moved the bicycle post's URL (the old one is asked for too).
  for (const key of Object.keys(posts))
    posts[key] = {
      ...(await api(stack.baseUrl, token, 'GET', `/api/posts/${posts[key].id}`)),
      oldUrl: posts[key].url,
    };
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    posts.imported = await importWxr(stack, token, client);
    // An imported post's old addresses (what an import stores): 301 to its page.
    await client.query(
      `INSERT INTO posts.post_old_paths (path, post_id) VALUES ('/?p=12', $1), ('/2019/05/12/roadster-weekend', $1)`,
      [posts.roadster.id],
    );
    // The fixed clock: seeded posts were dated from now(), written ones are now (imported ones
    // keep their export's dates; their updated_at is the import's time).
    await client.query(
      `UPDATE posts.posts SET created_at = $1::timestamptz - id * interval '37 minutes',
                              updated_at = $1::timestamptz - id * interval '37 minutes' + interval '1 hour'
        WHERE source_id IS NULL`,
      [CLOCK],
    );
    await client.query(
      `UPDATE posts.posts SET updated_at = created_at + interval '1 day' WHERE source_id IS NOT NULL`,
    );
    await client.query(`UPDATE posts.posts SET created_at = $1, updated_at = $1 WHERE id = $2`, [
      SCHEDULED_AT,
      posts.scheduled.id,
    ]);
    await client.query(`UPDATE posts.media_items SET created_at = $1`, [CLOCK]).catch(() => undefined);
  } finally {
    await client.end();
  }
  return posts;
}

export async function startTarget(target) {
  const stack = await startSeedableStack(
    `answers-${target.name.replace(/\W+/g, '-')}`,
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, SITE_URL },
    target.root,
  );
  return { ...stack, port: Number(new URL(stack.baseUrl).port) };
}
