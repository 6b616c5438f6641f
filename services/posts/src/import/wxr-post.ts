import sanitizeHtml from 'sanitize-html';

/**
 * What makes a WordPress item this post: the site it was exported from, its id there, its
 * title as text, and whether WordPress kept it from the public.
 */

/**
 * The site a WXR file was exported from, as host and path without the scheme (a site moved
 * to https keeps its identity): the channel's wp:base_blog_url, else its <link>, else
 * wp:base_site_url (on WordPress.com that one is "https://wordpress.com/" for every blog).
 */
export function wxrSite(channel: Record<string, string>): string {
  for (const key of ['wp:base_blog_url', 'link', 'wp:base_site_url']) {
    const value = channel[key]?.trim();
    if (!value) continue;
    try {
      const url = new URL(value);
      return `${url.host}${url.pathname.replace(/\/+$/, '')}`.toLowerCase();
    } catch {
      return value.replace(/\/+$/, '').toLowerCase();
    }
  }
  return '';
}

/**
 * A post's identity: the exporting site and its wp:post_id, since WordPress gives a copied
 * post the GUID of its original (the theme unit test file has two such pairs); the GUID only
 * where there is no id. `former`: the "wxr:<guid>" identity imports stored until then, found
 * again so those posts are updated, not doubled (see ImportedPostWriter.write).
 */
export function wxrIdentity(
  site: string,
  fields: Record<string, string>,
  rawTitle: string,
): { sourceId: string; former: string[] } {
  const postId = fields['wp:post_id']?.trim();
  const former = `wxr:${fields.guid?.trim() || fields['wp:post_id'] || rawTitle}`.slice(0, 300);
  if (!postId) return { sourceId: former, former: [] };
  return { sourceId: `wxr:${site}:${postId}`.slice(0, 300), former: [former] };
}

/** Why WordPress kept a post from the public, if it did: a password, or the private status. */
export function wxrRestriction(fields: Record<string, string>, wpStatus: string): string | undefined {
  if (fields['wp:post_password']?.trim()) return 'password-protected';
  if (wpStatus === 'private') return 'private';
  return undefined;
}

/** sanitize-html's escaping of the text it keeps (exactly &, < and >), undone in one pass. */
const UNESCAPE: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };

/**
 * A WordPress title is HTML ("Markup: Title <em>With</em> Markup", "Tom &amp; Jerry"): its
 * text without the tags, its entities decoded once, its white space collapsed.
 */
export function wxrTitle(html: string): string {
  const text = sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} });
  return text
    .replace(/&(?:amp|lt|gt);/g, (entity) => UNESCAPE[entity]!)
    .replace(/\s+/g, ' ')
    .trim();
}
