import { PRELOADED_ELEMENT_ID, type PreloadedData } from '@blog/contracts/preloaded';
import type { PostView } from '@blog/contracts/posts';

/** The data the server wrote into this page's HTML (null when served without it, as by `vite dev`). */
function read(): Partial<PreloadedData> {
  const element = document.getElementById(PRELOADED_ELEMENT_ID);
  if (!element?.textContent) return {};
  try {
    return JSON.parse(element.textContent) as Partial<PreloadedData>;
  } catch {
    return {};
  }
}

const preloaded = read();

export const preloadedSite = preloaded.site ?? null;

let firstPost = preloaded.post ?? null;

/**
 * The post written into the page for its first render, once: a later visit to the same page
 * (after an edit, say) asks the API again.
 */
export function takePreloadedPost(slug: string): PostView | null {
  const post = firstPost;
  firstPost = null;
  return post && post.slug === slug ? post : null;
}
