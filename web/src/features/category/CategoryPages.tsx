import type { SiteCategory, SiteConfig, SiteEntry, SiteSubcategory } from '@blog/contracts/site';
import { buildListingPath } from '@blog/contracts/urls';
import { Link } from '../../components/Link';
import { PostList } from '../../components/PostList';
import { usePageTitle } from '../../hooks/usePageTitle';
import { CATEGORY_PAGE_SIZE, type ListData } from '../../loaders';
import { SectionSidebar } from './SectionSidebar';

/** A hub has sub-sections to browse (garage, gadgets, food, activities, social); others list their posts. */
export const isHub = (category: SiteCategory) => category.subcategories.some((sub) => !sub.general);

/** A sub-section with named level-2 entries (car and motorcycle models, racing series, friends) gets the sidebar. */
export const hasSidebar = (sub: SiteSubcategory) => sub.entries.some((entry) => !entry.general);

/** Posts of one part of the tree, 30 a page, filtered and paged by the API. */
function Listing({
  posts,
  name,
  emptyText,
  headingLevel,
}: {
  posts: ListData;
  name: string;
  emptyText: string;
  headingLevel: 'h2' | 'h3';
}) {
  return (
    <PostList
      posts={posts}
      pageSize={CATEGORY_PAGE_SIZE}
      variant="category"
      loadingText={`Loading ${name.toLowerCase()} posts...`}
      emptyText={emptyText}
      label={`${name} posts`}
      headingLevel={headingLevel}
    />
  );
}

const emptyTextOf = (category: SiteCategory, name = category.label) =>
  category.emptyText ?? `No ${name.toLowerCase()} posts yet.`;

/** A section landing page: hub cards to browse plus recent posts, or the section's posts. */
export function SectionPage({
  site,
  category,
  posts,
}: {
  site: SiteConfig;
  category: SiteCategory;
  posts: ListData;
}) {
  usePageTitle();
  const hub = isHub(category);
  return (
    <>
      <header className="page-header">
        <h1>{category.label}</h1>
      </header>
      {category.intro && (
        <section className="card intro-card" aria-label="Introduction">
          <p>{category.intro}</p>
        </section>
      )}
      {hub && (
        <section aria-labelledby="browse-heading">
          <h2 id="browse-heading">Browse by Category</h2>
          <ul className="browse-cards">
            {category.subcategories
              .filter((sub) => !sub.general)
              .map((sub) => (
                <li key={sub.segment}>
                  <Link
                    className="card browse-card"
                    to={buildListingPath(site, { category: category.label, submenu1: sub.label })!}
                  >
                    <span className="browse-card-title">{sub.label}</span>
                    {sub.intro && <span className="browse-card-text">{sub.intro}</span>}
                  </Link>
                </li>
              ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="posts-heading">
        <h2 id="posts-heading">{hub ? 'Recent Posts' : 'Posts'}</h2>
        <Listing posts={posts} name={category.label} emptyText={emptyTextOf(category)} headingLevel="h3" />
      </section>
    </>
  );
}

interface SubsectionProps {
  site: SiteConfig;
  category: SiteCategory;
  subcategory: SiteSubcategory;
  entry: SiteEntry | null;
  posts: ListData;
}

/** A sub-section, optionally filtered to one level-2 entry (a model page, a friend's page). */
export function SubsectionPage({ site, category, subcategory, entry, posts }: SubsectionProps) {
  const name = entry ? entry.label : subcategory.label;
  usePageTitle();
  const content = entry?.underConstruction ? (
    <p className="card under-construction">This page is under construction.</p>
  ) : (
    <Listing posts={posts} name={name} emptyText={`No ${name.toLowerCase()} posts yet.`} headingLevel="h2" />
  );
  const header = (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to={buildListingPath(site, { category: category.label })!}>{category.label}</Link>
        {entry && (
          <>
            {' / '}
            <Link to={buildListingPath(site, { category: category.label, submenu1: subcategory.label })!}>
              {subcategory.label}
            </Link>
          </>
        )}
      </nav>
      <h1>{name}</h1>
      {subcategory.intro && !entry && (
        <section className="card intro-card" aria-label="Introduction">
          <p>{subcategory.intro}</p>
        </section>
      )}
    </>
  );
  if (!hasSidebar(subcategory)) {
    return (
      <>
        {header}
        {content}
      </>
    );
  }
  return (
    <div className="with-sidebar">
      <SectionSidebar site={site} category={category} subcategory={subcategory} current={entry} />
      <div className="with-sidebar-main">
        {header}
        {content}
      </div>
    </div>
  );
}
