import { resolvePath } from '@blog/contracts/urls';
import { useLoaderData, useLocation } from 'react-router-dom';
import type { TreeData } from '../../loaders';
import { NotFoundPage } from '../../components/NotFoundPage';
import { useSite } from '../../site/SiteContext';
import { PostPage } from '../posts';
import { SectionPage, SubsectionPage } from './CategoryPages';

/**
 * Every path under the category tree: a section, a sub-section (with its optional level-2
 * part) or a post, with the data its loader brought; anything else is not found.
 */
export function TreePage() {
  const site = useSite();
  const data = useLoaderData() as TreeData;
  const { pathname } = useLocation();
  const resolved = resolvePath(site, pathname);
  if (!resolved || data.kind === 'notFound') return <NotFoundPage />;
  if (data.kind === 'post') return <PostPage key={pathname} post={data.post} />;
  if (resolved.kind === 'post') return <NotFoundPage />;
  if (resolved.kind === 'section')
    return <SectionPage key={pathname} site={site} category={resolved.category} posts={data.posts} />;
  return (
    <SubsectionPage
      key={pathname}
      site={site}
      category={resolved.category}
      subcategory={resolved.subcategory}
      entry={resolved.entry}
      posts={data.posts}
    />
  );
}
