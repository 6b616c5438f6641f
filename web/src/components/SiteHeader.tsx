import { Link } from './Link';
import { SearchBox } from './SearchBox';
import { useSite } from '../site/SiteContext';

/** The header banner with the site title and the search box (docs/product.md#what-the-blog-does). */
export function SiteHeader() {
  const site = useSite();
  const banner = site.bannerImage;
  return (
    <header className="site-header">
      {banner && (
        <img
          className="banner-image"
          src={banner}
          alt=""
          width={1200}
          height={200}
          fetchPriority="high"
          onError={() => console.error(`The banner image ${banner} failed to load`)}
        />
      )}
      <div className="banner">
        <Link to="/" className="site-title">
          {site.title}
        </Link>
        <SearchBox />
      </div>
    </header>
  );
}
