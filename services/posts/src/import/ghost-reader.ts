import { escapeRegExp } from '@blog/contracts';
import type { Readable } from 'node:stream';
import { IMPORT_LIMITS, overLimit } from './import-limits.js';
import { jsonAt } from './json-stream.js';
import { ImportFileError, oldPathsOf, type SourceEntry } from './source-post.js';

type Row = Record<string, unknown>;
const str = (value: unknown) => (typeof value === 'string' ? value : value == null ? '' : String(value));

/** What the posts need from the rest of the export: tags, their links to posts, and the posts' meta. */
export interface GhostIndex {
  total: number;
  tags: Map<string, Row>;
  tagsOf: Map<string, Row[]>;
  meta: Map<string, Row>;
}

/** The elements of one array of a Ghost export (data.posts, data.tags, …; with or without the `db` wrapper of versions 4 to 6). */
const ghostArray = (stream: Readable, name: string, seen?: { found: boolean }) =>
  jsonAt<Row>(stream, new RegExp(`^(db\\.0\\.)?data\\.${escapeRegExp(name)}$`), { seen });

/** Only what the posts use of a row, each text cut to a sane length, so a kept row stays small. */
const pickRow = (row: Row, fields: readonly string[]): Row =>
  Object.fromEntries(fields.filter((f) => row[f] != null).map((f) => [f, str(row[f]).slice(0, 1000)]));

/** More rows than `max` of one kind: the import fails, naming the limit (memory holds them all). */
function counted(max: number, what: string) {
  let count = 0;
  return () => {
    if (++count > max) throw overLimit(`more than ${max.toLocaleString('en-US')} ${what}`);
  };
}

/**
 * First passes: the tags, their links and the posts' meta, and how many posts there are. They
 * stay in memory while the posts are read, so each kind has a count limit and each row keeps
 * only the fields the posts use.
 */
export async function indexGhost(open: () => Promise<Readable>): Promise<GhostIndex> {
  const seen = { found: false };
  let total = 0;
  for await (const post of ghostArray(await open(), 'posts', seen))
    if ((str(post.type) || 'post') === 'post') total++;
  if (!seen.found) throw new ImportFileError('Not a Ghost export: no db[0].data.posts or data.posts');
  const tags = new Map<string, Row>();
  const tag = counted(IMPORT_LIMITS.ghostTags, 'tags');
  for await (const row of ghostArray(await open(), 'tags')) {
    tag();
    tags.set(str(row.id), pickRow(row, ['id', 'name', 'slug', 'visibility']));
  }
  const links: Row[] = [];
  const link = counted(IMPORT_LIMITS.ghostTagLinks, 'links between posts and tags (posts_tags)');
  for await (const row of ghostArray(await open(), 'posts_tags')) {
    link();
    links.push({
      post_id: str(row.post_id),
      tag_id: str(row.tag_id),
      sort_order: Number(row.sort_order ?? 0),
    });
  }
  links.sort((a, b) => Number(a.sort_order ?? 0) - Number(b.sort_order ?? 0));
  const tagsOf = new Map<string, Row[]>();
  for (const link of links) {
    const tag = tags.get(str(link.tag_id));
    if (!tag) continue;
    const list = tagsOf.get(str(link.post_id)) ?? [];
    list.push(tag);
    tagsOf.set(str(link.post_id), list);
  }
  const meta = new Map<string, Row>();
  const metaRow = counted(IMPORT_LIMITS.ghostMeta, 'post details (posts_meta)');
  for await (const row of ghostArray(await open(), 'posts_meta')) {
    metaRow();
    meta.set(str(row.post_id), pickRow(row, ['feature_image_alt', 'feature_image_caption']));
  }
  return { total, tags, tagsOf, meta };
}

/** Ghost's visibilities other than public, as the report names them. */
const RESTRICTIONS: Record<string, string> = {
  members: 'members only',
  paid: 'paid members only',
  tiers: 'specific tiers',
};

/**
 * Why Ghost kept a post from the public, if it did: `visibility` members, paid or tiers; any
 * other value but public (a version this reader does not know) is restricted too, named as it is.
 */
function ghostRestriction(visibility: string): string | undefined {
  const value = visibility.trim();
  if (!value || value === 'public') return undefined;
  return RESTRICTIONS[value] ?? `members of ${value.slice(0, 100)}`;
}

/** Each Ghost post as a post to import; pages and internal tags are left out. */
export async function* ghostEntries(
  stream: Readable,
  index: GhostIndex,
  sourceUrl: string,
): AsyncGenerator<SourceEntry> {
  const base = sourceUrl.replace(/\/+$/, '');
  const resolve = (url: string) => url.replace(/__GHOST_URL__/g, base);
  for await (const post of ghostArray(stream, 'posts')) {
    const id = str(post.id);
    const title = str(post.title).trim() || `(untitled ${id})`;
    if ((str(post.type) || 'post') !== 'post') {
      yield { kind: 'skipped', reason: str(post.type), item: title };
      continue;
    }
    const status = str(post.status);
    const when = str(post.published_at) || str(post.created_at);
    const date = when ? new Date(when) : null;
    const slug = str(post.slug);
    // Internal tags (#…) organise Ghost itself; they are not the post's tags.
    const publicTags = (index.tagsOf.get(id) ?? []).filter(
      (t) => !str(t.name).startsWith('#') && t.visibility !== 'internal',
    );
    const postMeta = index.meta.get(id);
    const feature = str(post.feature_image);
    const url = str(post.url);
    const restricted = ghostRestriction(str(post.visibility));
    yield {
      kind: 'post',
      post: {
        sourceId: `ghost:${id}`.slice(0, 300),
        title: title.slice(0, 200),
        slug,
        status: !restricted && (status === 'published' || status === 'scheduled') ? 'published' : 'draft',
        restricted,
        date: date && !Number.isNaN(date.getTime()) ? date : null,
        html: resolve(str(post.html)),
        tags: publicTags.map((t) => str(t.name)),
        categories: publicTags.map((t) => ({ slug: str(t.slug), name: str(t.name) })),
        featuredImage: feature
          ? {
              url: resolve(feature),
              alt: str(postMeta?.feature_image_alt ?? post.feature_image_alt) || undefined,
              caption: str(postMeta?.feature_image_caption ?? post.feature_image_caption) || undefined,
            }
          : undefined,
        // Ghost's own URL form is /slug/; an export may carry the full url too.
        oldPaths: oldPathsOf(url ? resolve(url) : undefined, slug, null),
      },
    };
  }
}
