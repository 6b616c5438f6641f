import type { PostView } from './posts.js';
import type { SiteConfig } from './site.js';

/**
 * What the server writes into a page's HTML for the app's first render: the route loaders'
 * data (react-router's hydration state), so the browser hydrates the rendered page without
 * asking the API again. `rendered` says whether the markup under #root is the server's render
 * (hydrate it) or empty (the sign-in and admin screens, drawn in the browser).
 */
export interface PreloadedData {
  rendered: boolean;
  /** By route id; the root route's is `{ site, search }`. */
  loaderData: Record<string, unknown>;
  /** The answer to a form posted without JavaScript (the About page's forms). */
  actionData?: Record<string, unknown> | null;
}

/** The id of the `<script type="application/json">` element that carries it. */
export const PRELOADED_ELEMENT_ID = 'preloaded-data';

/**
 * The page renderer the web builds for the gateway (web/src/entry-server.tsx, built into
 * web/dist-ssr): the gateway hands it a request, it runs the route loaders and renders.
 */
export interface PageRenderRequest {
  /** The page's absolute URL, query included. */
  url: string;
  method: 'GET' | 'POST';
  /** A form posted without JavaScript (application/x-www-form-urlencoded). */
  form?: URLSearchParams;
  site: SiteConfig;
  /** Where the loaders reach the API: the gateway itself, over loopback. */
  apiBase: string;
  /** Sent with each API call: the reader's address (for the rate limits) and, if any, their token. */
  apiHeaders: Record<string, string>;
}

export type PageRenderResult =
  | { kind: 'redirect'; status: number; location: string }
  /** A screen drawn only in the browser (sign-in, account, admin): the gateway sends the shell. */
  | { kind: 'client'; preloaded: PreloadedData }
  | { kind: 'page'; status: number; markup: string; preloaded: PreloadedData; post: PostView | null };

export type RenderPage = (request: PageRenderRequest) => Promise<PageRenderResult>;
