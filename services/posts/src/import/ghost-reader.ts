import type { Readable } from 'node:stream';
import { ImportFileError, oldPathsOf, type SourceEntry } from './source-post.js';

/**
 * A Ghost export is one JSON document whose images are only URLs: a very large blog's is a
 * few tens of MB. Past this it is refused rather than read into memory.
 */
const MAX_GHOST_BYTES = 256 * 1024 * 1024;

type Row = Record<string, unknown>;
const str = (value: unknown) => (typeof value === 'string' ? value : value == null ? '' : String(value));

export interface GhostData {
  posts: Row[];
  tags: Row[];
  postsTags: Row[];
  postsMeta: Row[];
}

/** Reads a Ghost JSON export (versions 4 to 6, with or without the `db` wrapper). */
export async function readGhost(stream: Readable): Promise<GhostData> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_GHOST_BYTES)
      throw new ImportFileError('A Ghost export larger than 256 MB is not supported');
    chunks.push(chunk as Buffer);
  }
  let document: unknown;
  try {
    document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new ImportFileError(`The file is not valid JSON: ${(error as Error).message}`);
  }
  const root = document as { db?: { data?: Row }[]; data?: Row };
  const data = (Array.isArray(root?.db) ? root.db[0]?.data : root?.data) as Row | undefined;
  if (!data || !Array.isArray(data.posts))
    throw new ImportFileError('Not a Ghost export: no db[0].data.posts or data.posts');
  const list = (name: string) => (Array.isArray(data[name]) ? (data[name] as Row[]) : []);
  return {
    posts: list('posts'),
    tags: list('tags'),
    postsTags: list('posts_tags'),
    postsMeta: list('posts_meta'),
  };
}

/** Each Ghost post as a post to import; pages and internal tags are left out. */
export function* ghostEntries(data: GhostData, sourceUrl: string): Generator<SourceEntry> {
  const base = sourceUrl.replace(/\/+$/, '');
  const resolve = (url: string) => url.replace(/__GHOST_URL__/g, base);
  const tags = new Map(data.tags.map((t) => [str(t.id), t]));
  const tagsOf = new Map<string, Row[]>();
  for (const link of [...data.postsTags].sort(
    (a, b) => Number(a.sort_order ?? 0) - Number(b.sort_order ?? 0),
  )) {
    const tag = tags.get(str(link.tag_id));
    if (!tag) continue;
    const list = tagsOf.get(str(link.post_id)) ?? [];
    list.push(tag);
    tagsOf.set(str(link.post_id), list);
  }
  const meta = new Map(data.postsMeta.map((m) => [str(m.post_id), m]));
  for (const post of data.posts) {
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
    const publicTags = (tagsOf.get(id) ?? []).filter(
      (t) => !str(t.name).startsWith('#') && t.visibility !== 'internal',
    );
    const postMeta = meta.get(id);
    const feature = str(post.feature_image);
    const url = str(post.url);
    yield {
      kind: 'post',
      post: {
        sourceId: `ghost:${id}`.slice(0, 300),
        title: title.slice(0, 200),
        slug,
        status: status === 'published' || status === 'scheduled' ? 'published' : 'draft',
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
