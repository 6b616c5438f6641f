import type { SiteConfig } from '@blog/contracts/site';
import { useEffect, useState } from 'react';
import type { PostFilters } from '../lib/filters';
import { submenu1Options, submenu2Options } from '../lib/postForm';
import { Field } from '../../../components/ui';

interface Props {
  site: SiteConfig | null;
  filters: PostFilters;
  onChange(key: keyof PostFilters, value: string): void;
  onClear(): void;
}

/** Search text, category, the two dependent submenu selects and the date range (docs/product.md#screens). */
export function PostFiltersBar({ site, filters, onChange, onClear }: Props) {
  // The search box follows typing; the URL (and the API call) once typing pauses.
  const [search, setSearch] = useState(filters.search);
  useEffect(() => setSearch(filters.search), [filters.search]);
  useEffect(() => {
    if (search === filters.search) return;
    const timer = setTimeout(() => onChange('search', search), 300);
    return () => clearTimeout(timer);
  }, [search, filters.search, onChange]);

  const level1 = site && filters.category ? submenu1Options(site, filters.category) : [];
  const level2 = site && filters.submenu1 ? submenu2Options(site, filters.category, filters.submenu1) : [];
  return (
    <form
      className="admin-filters"
      role="search"
      aria-label="Filter posts"
      onSubmit={(e) => e.preventDefault()}
    >
      <Field id="filter-search" label="Search text" className="admin-filter-search">
        <input
          id="filter-search"
          type="search"
          placeholder="Title, content or tags"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </Field>
      <Field id="filter-category" label="Category">
        <select
          id="filter-category"
          value={filters.category}
          onChange={(e) => onChange('category', e.target.value)}
        >
          <option value="">All categories</option>
          {site?.categories.map((c) => (
            <option key={c.label} value={c.label}>
              {c.label}
            </option>
          ))}
        </select>
      </Field>
      <Field id="filter-submenu1" label="Submenu">
        <select
          id="filter-submenu1"
          value={filters.submenu1}
          disabled={level1.length === 0}
          onChange={(e) => onChange('submenu1', e.target.value)}
        >
          <option value="">All</option>
          {level1.map((label) => (
            <option key={label}>{label}</option>
          ))}
        </select>
      </Field>
      <Field id="filter-submenu2" label="Sub-submenu">
        <select
          id="filter-submenu2"
          value={filters.submenu2}
          disabled={level2.length === 0}
          onChange={(e) => onChange('submenu2', e.target.value)}
        >
          <option value="">All</option>
          {level2.map((label) => (
            <option key={label}>{label}</option>
          ))}
        </select>
      </Field>
      <Field id="filter-from" label="Start date">
        <input
          id="filter-from"
          type="date"
          value={filters.from}
          onChange={(e) => onChange('from', e.target.value)}
        />
      </Field>
      <Field id="filter-to" label="End date">
        <input
          id="filter-to"
          type="date"
          value={filters.to}
          onChange={(e) => onChange('to', e.target.value)}
        />
      </Field>
      <Field id="filter-status" label="Status">
        <select
          id="filter-status"
          value={filters.status}
          onChange={(e) => onChange('status', e.target.value)}
        >
          <option value="">All</option>
          <option value="published">Published</option>
          <option value="scheduled">Scheduled</option>
          <option value="draft">Draft</option>
        </select>
      </Field>
      <div className="admin-filters-clear">
        <button type="button" className="button button-secondary" onClick={onClear}>
          Clear All Filters
        </button>
      </div>
    </form>
  );
}
