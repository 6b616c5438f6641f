import { MEDIA_ALT_MAX } from '@blog/contracts';
import type { SaxesTagPlain } from 'saxes';
import type { Readable } from 'node:stream';
import { breather, describeBytes, IMPORT_LIMITS, overLimit } from './import-limits.js';
import { paragraphsOf, type ImportedComment } from '../comments/imported-comment.js';
import { ImportFileError, oldPathsOf, type SourceEntry } from './source-post.js';
import { wxrIdentity, wxrRestriction, wxrSite, wxrTitle } from './wxr-post.js';

interface RawItem {
  fields: Record<string, string>;
  categories: { domain: string; slug: string; name: string }[];
  meta: Record<string, string>;
  /** Its wp:comment elements' fields (wp:comment_id, wp:comment_approved, …). */
  comments: Record<string, string>[];
}

export interface WxrScan {
  /** Items that are posts. */
  total: number;
  /** Attachments by id: featured images and galleries name them. */
  attachments: Map<string, { url: string; alt?: string }>;
}

/** The parser gets at most this much at once, so a run without events is measured finely. */
const SLICE = 16 * 1024;

/**
 * Watches the raw text for comments: saxes holds a comment as many small strings (a "-x-x…"
 * comment of 4 MB took 100 MB and seconds of garbage collection), and an export's comments are
 * short, so one longer than IMPORT_LIMITS.comment fails. CDATA sections are skipped over (a
 * `<!--` inside one is text). Answers, for each slice fed, whether the limit is passed.
 */
function commentGuard(): (slice: string) => boolean {
  let inside: '' | '-->' | ']]>' = '';
  let length = 0;
  let tail = ''; // the end of the last slice, where a marker may have begun
  return (slice) => {
    const text = tail + slice;
    let at = 0;
    for (;;) {
      if (inside) {
        const end = text.indexOf(inside, at);
        if (end < 0) {
          if (inside === '-->') length += text.length - at;
          break;
        }
        at = end + inside.length;
        inside = '';
        length = 0;
      } else {
        const comment = text.indexOf('<!--', at);
        const cdata = text.indexOf('<![CDATA[', at);
        if (comment < 0 && cdata < 0) break;
        if (cdata < 0 || (comment >= 0 && comment < cdata)) [inside, at] = ['-->', comment + 4];
        else [inside, at] = [']]>', cdata + 9];
      }
    }
    tail = text.slice(Math.max(at, text.length - 8));
    return length > IMPORT_LIMITS.comment;
  };
}

/**
 * The items of a WordPress export (WXR 1.0-1.2), read as a stream with saxes: memory holds
 * one item at a time. A DOCTYPE is refused (a WXR file has none; it is how entity-expansion
 * and external-entity attacks arrive). Memory stays bounded whatever the shape: saxes holds
 * what it has read since its last event (a text, a CDATA section, a tag with its attributes),
 * so more than IMPORT_LIMITS.text without an event fails, as do a text, an item or a nesting
 * past their limits.
 */
export async function* wxrItems(
  stream: Readable,
  /** Filled with the channel's own fields (link, wp:base_blog_url, …) as they go by. */
  channel: Record<string, string> = {},
): AsyncGenerator<RawItem> {
  // Loaded with the first WXR file an import reads, not with every start of the service.
  const { SaxesParser } = await import('saxes');
  const parser = new SaxesParser({ xmlns: false });
  const done: RawItem[] = [];
  const path: string[] = [];
  let item: RawItem | null = null;
  let itemSize = 0;
  let text = '';
  let category: { domain: string; slug: string } | null = null;
  let metaKey = '';
  let comment: Record<string, string> | null = null;
  let sawRoot = false;
  let error: Error | null = null;
  /** Characters given to the parser since its last event. */
  let pending = 0;

  const keep = (value: string) => {
    itemSize += value.length;
    if (itemSize > IMPORT_LIMITS.item)
      error ??= overLimit(`an item of more than ${describeBytes(IMPORT_LIMITS.item)}`);
    return value;
  };
  const event = () => (pending = 0);
  parser.on('doctype', () => {
    error ??= new ImportFileError(
      'The file declares a DOCTYPE: a WordPress export has none, so it is refused',
    );
  });
  parser.on('comment', event);
  parser.on('processinginstruction', event);
  parser.on('opentag', (tag: SaxesTagPlain) => {
    event();
    if (!sawRoot) {
      sawRoot = true;
      if (tag.name !== 'rss')
        error ??= new ImportFileError('Not a WordPress export: the root element is not <rss>');
    }
    path.push(tag.name);
    if (path.length > IMPORT_LIMITS.depth)
      error ??= overLimit(`elements nested more than ${IMPORT_LIMITS.depth} deep`);
    text = '';
    if (tag.name === 'item' && path.length === 3) {
      item = { fields: {}, categories: [], meta: {}, comments: [] };
      itemSize = 0;
    }
    if (item && tag.name === 'wp:comment' && path.length === 4) comment = {};
    if (item && tag.name === 'category')
      category = {
        domain: keep(String(tag.attributes.domain ?? '')),
        slug: keep(String(tag.attributes.nicename ?? '')),
      };
  });
  const addText = (t: string) => {
    event();
    // Only the texts of an item and of the channel's own fields are kept; the rest are dropped as they come.
    if (!item && path.length !== 3) return;
    if (text.length + t.length > IMPORT_LIMITS.text)
      error ??= overLimit(`a text of more than ${describeBytes(IMPORT_LIMITS.text)}`);
    else text += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', (tag) => {
    event();
    path.pop();
    if (!item) {
      if (path.length === 2) channel[tag.name] = text.trim();
      return;
    }
    if (tag.name === 'item') {
      done.push(item);
      item = null;
      comment = null;
    } else if (comment) {
      // A comment's own fields; its wp:commentmeta is not used (nor mistaken for the post's meta).
      if (tag.name === 'wp:comment' && path.length === 3) {
        item.comments.push(comment);
        comment = null;
      } else if (path.length === 4 && tag.name.startsWith('wp:comment_')) comment[tag.name] = keep(text);
    } else if (tag.name === 'category' && category) {
      item.categories.push({ ...category, name: keep(text.trim()) });
      category = null;
    } else if (tag.name === 'wp:meta_key') metaKey = keep(text.trim());
    else if (tag.name === 'wp:meta_value') item.meta[metaKey] = keep(text);
    else if (path.length === 3) item.fields[tag.name] = keep(text);
    text = '';
  });
  parser.on('error', (e) => {
    error ??= new ImportFileError(`The file is not well-formed XML: ${e.message.split('\n')[0]}`);
  });

  const pause = breather();
  const longComment = commentGuard();
  for await (const chunk of stream) {
    const part = (chunk as Buffer).toString('utf8');
    for (let at = 0; at < part.length; at += SLICE) {
      const slice = part.length > SLICE ? part.slice(at, at + SLICE) : part;
      pending += slice.length;
      if (longComment(slice))
        throw overLimit(`a comment of more than ${describeBytes(IMPORT_LIMITS.comment)}`);
      parser.write(slice);
      if (!error && pending > IMPORT_LIMITS.text + SLICE)
        error = overLimit(`a text, tag or comment of more than ${describeBytes(IMPORT_LIMITS.text)}`);
      if (error) throw error;
      await pause();
    }
    while (done.length) yield done.shift()!;
  }
  parser.close();
  if (error) throw error;
  if (!sawRoot) throw new ImportFileError('The file is empty');
  if (path.length) throw new ImportFileError('The file ends in the middle: it was truncated');
  while (done.length) yield done.shift()!;
}

/** First pass: how many posts, and the attachments' files. */
export async function scanWxr(stream: Readable): Promise<WxrScan> {
  const scan: WxrScan = { total: 0, attachments: new Map() };
  // The attachments stay in memory for the second pass: their texts together have a limit.
  let kept = 0;
  for await (const item of wxrItems(stream)) {
    const type = item.fields['wp:post_type'];
    if (type === 'post') scan.total++;
    if (type === 'attachment' && item.fields['wp:attachment_url']) {
      const id = item.fields['wp:post_id'] ?? '';
      const url = item.fields['wp:attachment_url'].trim();
      const alt = item.meta._wp_attachment_image_alt?.trim().slice(0, MEDIA_ALT_MAX) || undefined;
      kept += id.length + url.length + (alt?.length ?? 0) + 64;
      if (kept > IMPORT_LIMITS.attachments)
        throw overLimit(
          `attachments whose addresses pass ${describeBytes(IMPORT_LIMITS.attachments)} together`,
        );
      scan.attachments.set(id, { url, alt });
    }
  }
  return scan;
}

function wxrDate(gmt: string | undefined, local: string | undefined): Date | null {
  for (const [value, zone] of [
    [gmt, 'Z'],
    [local, 'Z'],
  ] as const) {
    const text = value?.trim();
    if (!text || text.startsWith('0000')) continue;
    const date = new Date(`${text.replace(' ', 'T')}${zone}`);
    if (!Number.isNaN(date.getTime())) return date;
  }
  return null;
}

/**
 * Second pass: each item as a post to import, or the reason it is skipped. The site comes from
 * the channel's fields, which WordPress writes before the items.
 */
export async function* wxrEntries(
  stream: Readable,
  attachments: WxrScan['attachments'],
): AsyncGenerator<SourceEntry> {
  const channel: Record<string, string> = {};
  for await (const { fields, categories, meta, comments } of wxrItems(stream, channel)) {
    const rawTitle = fields.title?.trim() || `(untitled ${fields['wp:post_id'] ?? ''})`.trim();
    const title = wxrTitle(rawTitle) || `(untitled ${fields['wp:post_id'] ?? ''})`.trim();
    const type = fields['wp:post_type'] ?? 'post';
    if (type !== 'post') {
      yield { kind: 'skipped', reason: type, item: title };
      continue;
    }
    const wpStatus = fields['wp:status'] ?? 'publish';
    if (wpStatus === 'trash' || wpStatus === 'auto-draft' || wpStatus === 'inherit') {
      yield { kind: 'skipped', reason: wpStatus, item: title };
      continue;
    }
    const date = wxrDate(fields['wp:post_date_gmt'], fields['wp:post_date']);
    const slug = fields['wp:post_name']?.trim() || '';
    const { sourceId, former } = wxrIdentity(wxrSite(channel), fields, rawTitle);
    const restricted = wxrRestriction(fields, wpStatus);
    const thumbnail = meta._thumbnail_id ? attachments.get(meta._thumbnail_id.trim()) : undefined;
    yield {
      kind: 'post',
      post: {
        sourceId,
        formerSourceIds: former,
        title: title.slice(0, 200),
        slug,
        // publish and future (scheduled: published, dated ahead) are published; draft, pending
        // and private are drafts, and so is a published post behind a password.
        status: !restricted && (wpStatus === 'publish' || wpStatus === 'future') ? 'published' : 'draft',
        restricted,
        date,
        html: fields['content:encoded'] ?? '',
        tags: categories.filter((c) => c.domain === 'post_tag').map((c) => c.name),
        categories: categories
          .filter((c) => c.domain === 'category')
          .map((c) => ({ slug: c.slug, name: c.name })),
        featuredImage: thumbnail ? { url: thumbnail.url, alt: thumbnail.alt } : undefined,
        oldPaths: oldPathsOf(fields.link, slug, date, fields['wp:post_id']),
        comments: wxrComments(sourceId, comments),
      },
    };
  }
}

/**
 * A post's approved comments (wp:comment_approved 1; pingbacks, trackbacks, pending and spam
 * left out), each named by the post's identity and its wp:comment_id; a reply keeps its parent
 * (WordPress threads deeper, this blog one level: the import's rule hangs it under the top one).
 */
function wxrComments(postSourceId: string, raw: Record<string, string>[]): ImportedComment[] {
  const identity = (id: string) => `${postSourceId}:comment:${id.trim()}`.slice(0, 400);
  const approved = raw.filter(
    (c) =>
      c['wp:comment_approved']?.trim() === '1' &&
      ['', 'comment'].includes(c['wp:comment_type']?.trim() ?? '') &&
      c['wp:comment_id']?.trim(),
  );
  const kept = new Map(approved.map((c) => [c['wp:comment_id']!.trim(), c]));
  /** The top comment a reply hangs under (its own parent's, for a reply to a reply). */
  const topOf = (id: string): string | null => {
    let parent = kept.get(id)?.['wp:comment_parent']?.trim() ?? '0';
    for (let hops = 0; parent !== '0' && kept.has(parent) && hops < 100; hops++) {
      const next = kept.get(parent)!['wp:comment_parent']?.trim() ?? '0';
      if (next === '0' || !kept.has(next)) return parent;
      parent = next;
    }
    return parent !== '0' && kept.has(parent) ? parent : null;
  };
  return approved.map((c) => {
    const id = c['wp:comment_id']!.trim();
    const top = topOf(id);
    return {
      sourceId: identity(id),
      parentSourceId: top === null ? null : identity(top),
      status: 'approved' as const,
      html: paragraphsOf(c['wp:comment_content'] ?? ''),
      authorName: c['wp:comment_author']?.trim() || 'Anonymous',
      authorHandle: null,
      authorUrl: c['wp:comment_author_url']?.trim() || null,
      local: false,
      remoteObjectId: null,
      remoteActorUri: null,
      via: 'WordPress',
      createdAt: wxrDate(c['wp:comment_date_gmt'], c['wp:comment_date']),
    };
  });
}
