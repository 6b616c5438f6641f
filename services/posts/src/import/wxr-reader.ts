import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { Readable } from 'node:stream';
import { ImportFileError, oldPathsOf, type SourceEntry } from './source-post.js';
import { wxrIdentity, wxrRestriction, wxrSite, wxrTitle } from './wxr-post.js';

/** Text longer than this without markup is not a blog export (a 2 GB line would fill the memory). */
const MAX_TEXT_RUN = 32 * 1024 * 1024;

interface RawItem {
  fields: Record<string, string>;
  categories: { domain: string; slug: string; name: string }[];
  meta: Record<string, string>;
}

export interface WxrScan {
  /** Items that are posts. */
  total: number;
  /** Attachments by id: featured images and galleries name them. */
  attachments: Map<string, { url: string; alt?: string }>;
}

/**
 * The items of a WordPress export (WXR 1.0-1.2), read as a stream with saxes: memory holds
 * one item at a time. A DOCTYPE is refused (a WXR file has none; it is how entity-expansion
 * and external-entity attacks arrive), as is text with no markup for MAX_TEXT_RUN.
 */
export async function* wxrItems(
  stream: Readable,
  /** Filled with the channel's own fields (link, wp:base_blog_url, …) as they go by. */
  channel: Record<string, string> = {},
): AsyncGenerator<RawItem> {
  const parser = new SaxesParser({ xmlns: false });
  const done: RawItem[] = [];
  const path: string[] = [];
  let item: RawItem | null = null;
  let text = '';
  let category: { domain: string; slug: string } | null = null;
  let metaKey = '';
  let sawRoot = false;
  let error: Error | null = null;

  parser.on('doctype', () => {
    error ??= new ImportFileError(
      'The file declares a DOCTYPE: a WordPress export has none, so it is refused',
    );
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    if (!sawRoot) {
      sawRoot = true;
      if (tag.name !== 'rss')
        error ??= new ImportFileError('Not a WordPress export: the root element is not <rss>');
    }
    path.push(tag.name);
    text = '';
    if (tag.name === 'item' && path.length === 3) item = { fields: {}, categories: [], meta: {} };
    if (item && tag.name === 'category')
      category = { domain: String(tag.attributes.domain ?? ''), slug: String(tag.attributes.nicename ?? '') };
  });
  parser.on('text', (t) => (text += t));
  parser.on('cdata', (t) => (text += t));
  parser.on('closetag', (tag) => {
    path.pop();
    if (!item) {
      if (path.length === 2) channel[tag.name] = text.trim();
      return;
    }
    if (tag.name === 'item') {
      done.push(item);
      item = null;
    } else if (tag.name === 'category' && category) {
      item.categories.push({ ...category, name: text.trim() });
      category = null;
    } else if (tag.name === 'wp:meta_key') metaKey = text.trim();
    else if (tag.name === 'wp:meta_value') item.meta[metaKey] = text;
    else if (path.length === 3) item.fields[tag.name] = text;
    text = '';
  });
  parser.on('error', (e) => {
    error ??= new ImportFileError(`The file is not well-formed XML: ${e.message.split('\n')[0]}`);
  });

  let run = 0;
  for await (const chunk of stream) {
    const part = (chunk as Buffer).toString('utf8');
    const lastTag = part.lastIndexOf('<');
    run = lastTag >= 0 ? part.length - lastTag : run + part.length;
    if (run > MAX_TEXT_RUN)
      throw new ImportFileError('The file has a text of more than 32 MB without markup: not a blog export');
    parser.write(part);
    if (error) throw error;
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
  for await (const item of wxrItems(stream)) {
    const type = item.fields['wp:post_type'];
    if (type === 'post') scan.total++;
    if (type === 'attachment' && item.fields['wp:attachment_url'])
      scan.attachments.set(item.fields['wp:post_id'] ?? '', {
        url: item.fields['wp:attachment_url'].trim(),
        alt: item.meta._wp_attachment_image_alt?.trim() || undefined,
      });
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
  for await (const { fields, categories, meta } of wxrItems(stream, channel)) {
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
      },
    };
  }
}
