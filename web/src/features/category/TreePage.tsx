import { NotFoundPage } from '../../pages/NotFoundPage';

/** Resolves a path against the category tree: a section, a sub-section listing or a post. */
export function TreePage() {
  return <NotFoundPage />;
}
