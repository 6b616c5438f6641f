import { escapeHtml, type NotePictureView, type NoteView, type SiteConfig } from '@blog/contracts';

/**
 * A note's page and the notes' list: self-contained HTML rendered here (one inline style sheet,
 * no script), the note's HTML as the posts service stored it (rendered and sanitised once per save).
 */
export const NOTES_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; base-uri 'none'; frame-ancestors 'none'";

const STYLE = `
  body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; background: #f4f4f4; color: #222; }
  header, main, footer { max-width: 40rem; margin: 0 auto; padding: 1rem; }
  header a { color: #222; font-weight: 600; text-decoration: none; }
  article { background: #fff; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.08); padding: 1rem 1.25rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
  article img { max-width: 100%; height: auto; }
  .pictures { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: .5rem; margin: .75rem 0; }
  .pictures img { display: block; width: 100%; height: auto; border-radius: 6px; background: #eee; }
  .meta { color: #595959; font-size: .9rem; }
  a { color: #1f5fa8; }
  h1 { font-size: 1.4rem; }
`;

const date = (iso: string) => new Date(iso).toISOString().slice(0, 10);

/** The ready pictures (a visitor never sees one still processing), each with its alt text and size. */
const shown = (note: NoteView) => (note.pictures ?? []).filter((p) => p.status === 'ready' && p.src);

function pictureImg(picture: NotePictureView, absolute: (path: string) => string = (p) => p): string {
  const size = picture.width && picture.height ? ` width="${picture.width}" height="${picture.height}"` : '';
  const srcset = picture.srcset
    ? ` srcset="${escapeHtml(picture.srcset)}" sizes="(max-width: 40rem) 100vw, 40rem"`
    : '';
  return `<img src="${escapeHtml(absolute(picture.src!))}"${srcset} alt="${escapeHtml(picture.alt)}"${size} loading="lazy" decoding="async">`;
}

function picturesHtml(note: NoteView): string {
  const pictures = shown(note);
  return pictures.length ? `<div class="pictures">${pictures.map((p) => pictureImg(p)).join('')}</div>` : '';
}

function noteArticle(note: NoteView, linked: boolean): string {
  const when = `<time datetime="${escapeHtml(note.published)}">${date(note.published)}</time>`;
  const reply = note.inReplyTo
    ? `<p class="meta">In reply to <a href="${escapeHtml(note.inReplyTo)}" rel="nofollow noopener">${escapeHtml(
        note.mention ? `@${note.mention.handle}` : note.inReplyTo,
      )}</a></p>`
    : '';
  const meta = linked ? `<a href="${escapeHtml(note.url)}">${when}</a>` : when;
  return `<article>${reply}${note.html}${picturesHtml(note)}<p class="meta">${meta}${note.updated ? ' · edited' : ''}</p></article>`;
}

function page(site: SiteConfig, title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="alternate" type="application/rss+xml" title="${escapeHtml(`${site.title}: notes`)}" href="/notes/rss.xml">
${head}<style>${STYLE}</style>
</head>
<body>
<header><a href="/">${escapeHtml(site.title)}</a> · <a href="/notes">Notes</a></header>
<main>
${body}
</main>
</body>
</html>`;
}

export function notePage(site: SiteConfig, siteUrl: string, note: NoteView): string {
  const alternate = `<link rel="alternate" type="application/activity+json" href="${escapeHtml(`${siteUrl}${note.url}`)}">\n`;
  return page(
    site,
    `Note ${note.id} · ${site.title}`,
    `<h1>Note</h1>\n${noteArticle(note, false)}`,
    alternate,
  );
}

export function goneNotePage(site: SiteConfig): string {
  return page(site, `Note deleted · ${site.title}`, '<h1>Note deleted</h1><p>This note was deleted.</p>');
}

export function notFoundNotePage(site: SiteConfig): string {
  return page(site, `Not found · ${site.title}`, '<h1>Note not found</h1>');
}

export function notesListPage(site: SiteConfig, notes: NoteView[], next: string | null): string {
  const items = notes.length ? notes.map((n) => noteArticle(n, true)).join('\n') : '<p>No notes yet.</p>';
  const more = next ? `<p><a href="/notes?cursor=${escapeHtml(next)}">Older notes</a></p>` : '';
  return page(site, `Notes · ${site.title}`, `<h1>Notes</h1>\n${items}\n${more}`);
}

const cdata = (text: string) => `<![CDATA[${text.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;

/** The notes' RSS feed: each note's HTML with the site's own links made absolute. */
export function notesRss(site: SiteConfig, siteUrl: string, notes: NoteView[]): string {
  const absolute = (html: string) =>
    html.replace(
      / (src|href)="(\/[^/"][^"]*)"/g,
      (_m, name: string, path: string) => ` ${name}="${siteUrl}${path}"`,
    );
  const items = notes
    .map((n) => {
      const link = escapeHtml(`${siteUrl}${n.url}`);
      return (
        `<item><title>${escapeHtml(`Note ${n.id}`)}</title><link>${link}</link><guid isPermaLink="true">${link}</guid>` +
        `<pubDate>${new Date(n.published).toUTCString()}</pubDate><description>${cdata(
          absolute(n.html) +
            shown(n)
              .map((p) => `<p>${pictureImg({ ...p, srcset: '' }, (path) => `${siteUrl}${path}`)}</p>`)
              .join(''),
        )}</description></item>`
      );
    })
    .join('\n');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">\n<channel>\n` +
    `<title>${escapeHtml(`${site.title}: notes`)}</title>\n<link>${escapeHtml(`${siteUrl}/notes`)}</link>\n` +
    `<description>${escapeHtml(`Notes from ${site.title}`)}</description>\n` +
    `<atom:link href="${escapeHtml(`${siteUrl}/notes/rss.xml`)}" rel="self" type="application/rss+xml" />\n` +
    `${items}\n</channel>\n</rss>\n`
  );
}
