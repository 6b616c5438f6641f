import { COMMENT_REMOTE_HTML_MAX, escapeRegExp } from '@blog/contracts';
import type { ImportedComment } from '../comments/imported-comment.js';
import type { Readable } from 'node:stream';
import { describeBytes, IMPORT_LIMITS, overLimit } from './import-limits.js';
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
  /** Published comments (Ghost 5's native ones), by post id, oldest first. */
  comments: Map<string, Row[]>;
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
  // Ghost's own comments are by members: their names come from the members rows, when the export has them.
  const names = new Map<string, string>();
  const member = counted(IMPORT_LIMITS.ghostMembers, 'members');
  for await (const row of ghostArray(await open(), 'members')) {
    member();
    names.set(str(row.id), str(row.name).slice(0, 300) || str(row.email).split('@')[0]!.slice(0, 100));
  }
  const comments = new Map<string, Row[]>();
  const comment = counted(IMPORT_LIMITS.ghostComments, 'comments');
  let bytes = 0;
  for await (const row of ghostArray(await open(), 'comments')) {
    comment();
    if (str(row.status) !== 'published') continue;
    bytes += str(row.html).length;
    if (bytes > IMPORT_LIMITS.ghostCommentBytes)
      throw overLimit(`comments of more than ${describeBytes(IMPORT_LIMITS.ghostCommentBytes)} together`);
    const list = comments.get(str(row.post_id)) ?? [];
    list.push({
      ...pickRow(row, ['id', 'parent_id', 'created_at', 'edited_at']),
      html: str(row.html).slice(0, COMMENT_REMOTE_HTML_MAX),
      author: names.get(str(row.member_id)) ?? '',
    });
    comments.set(str(row.post_id), list);
  }
  for (const list of comments.values())
    list.sort((a, b) => str(a.created_at).localeCompare(str(b.created_at)));
  return { total, tags, tagsOf, meta, comments };
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
        comments: ghostComments(`ghost:${id}`, index.comments.get(id) ?? []),
      },
    };
  }
}

/** A post's published comments, approved here, named by the post's identity and their Ghost id. */
function ghostComments(postSourceId: string, rows: Row[]): ImportedComment[] {
  const identity = (id: string) => `${postSourceId}:comment:${id}`.slice(0, 400);
  const ids = new Set(rows.map((row) => str(row.id)));
  return rows.map((row) => {
    const parent = str(row.parent_id);
    const created = new Date(str(row.created_at));
    return {
      sourceId: identity(str(row.id)),
      // Ghost threads one level deep too; a reply whose comment was not kept stands alone.
      parentSourceId: parent && ids.has(parent) ? identity(parent) : null,
      status: 'approved' as const,
      html: str(row.html),
      authorName: str(row.author) || 'Ghost member',
      authorHandle: null,
      authorUrl: null,
      local: false,
      remoteObjectId: null,
      remoteActorUri: null,
      via: 'Ghost',
      createdAt: Number.isNaN(created.getTime()) ? null : created,
    };
  });
}
