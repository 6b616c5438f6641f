import type { PostView } from './posts.js';
import type { SiteConfig } from './site.js';

/**
 * What the server writes into a page's HTML for the app's first render, so it paints without
 * waiting for the API: the site configuration and, on a post's page, the post.
 */
export interface PreloadedData {
  site: SiteConfig;
  post?: PostView;
}

/** The id of the `<script type="application/json">` element that carries it. */
export const PRELOADED_ELEMENT_ID = 'preloaded-data';
