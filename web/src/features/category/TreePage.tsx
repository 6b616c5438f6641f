import { resolvePath } from '@blog/contracts/urls';
import { useLocation } from 'react-router-dom';
import { NotFoundPage } from '../../pages/NotFoundPage';
import { useSiteState } from '../../site/SiteContext';
import { PostPage } from '../posts/PostPage';
import { SectionPage, SubsectionPage } from './CategoryPages';

/**
 * Every path under the category tree: a section, a sub-section (with its optional level-2
 * part) or a post; anything else is not found. Routes follow config/site.json.
 */
export function TreePage() {
  const state = useSiteState();
  const { pathname } = useLocation();
  if (state.status === 'loading') {
    return (
      <p role="status" className="loading">
        Loading...
      </p>
    );
  }
  if (state.status === 'error') {
    return (
      <p role="alert" className="form-error">
        The site could not be loaded. Please reload the page.
      </p>
    );
  }
  const { site } = state;
  const resolved = resolvePath(site, pathname);
  if (!resolved) return <NotFoundPage />;
  switch (resolved.kind) {
    case 'section':
      return <SectionPage key={pathname} site={site} category={resolved.category} />;
    case 'subsection':
      return (
        <SubsectionPage
          key={pathname}
          site={site}
          category={resolved.category}
          subcategory={resolved.subcategory}
          entry={resolved.entry}
        />
      );
    case 'post':
      return <PostPage key={pathname} slug={resolved.slug} />;
  }
}
