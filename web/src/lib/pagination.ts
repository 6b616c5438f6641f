/** Page numbers to show: a window of up to 5 around the current page, with ellipses (docs/product.md#screens, #limits-and-timings). */
export const PAGE_WINDOW = 5;

export type PageLink = number | 'ellipsis-start' | 'ellipsis-end';

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/**
 * The window keeps the current page in the middle where it can; the first and last pages
 * stay reachable, with an ellipsis standing for the pages skipped between.
 */
export function pageLinks(current: number, totalPages: number, window = PAGE_WINDOW): PageLink[] {
  if (totalPages <= 1) return [1];
  const half = Math.floor(window / 2);
  let start = Math.max(1, current - half);
  const end = Math.min(totalPages, start + window - 1);
  start = Math.max(1, end - window + 1);
  const links: PageLink[] = [];
  if (start > 1) {
    links.push(1);
    if (start > 2) links.push('ellipsis-start');
  }
  for (let page = start; page <= end; page++) links.push(page);
  if (end < totalPages) {
    if (end < totalPages - 1) links.push('ellipsis-end');
    links.push(totalPages);
  }
  return links;
}

/** Reads a 1-based page number from the URL; anything else is page 1. */
export function parsePage(value: string | null): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}
