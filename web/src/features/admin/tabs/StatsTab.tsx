import type { StatsReport } from '@blog/contracts/stats';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Link } from '../../../components/Link';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine } from '../../../components/ui';

const RANGES = ['7', '30', '90'] as const;
const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** The range in the URL (?range=7|30|90, or from/to), so a reload or a shared link shows the same. */
function rangeOf(params: URLSearchParams): { from: string; to: string; label: string } {
  const from = params.get('from');
  const to = params.get('to');
  if (from && to && /^\d{4}-\d{2}-\d{2}$/.test(from) && /^\d{4}-\d{2}-\d{2}$/.test(to))
    return { from, to, label: `${from} to ${to}` };
  const days = RANGES.includes(params.get('range') as (typeof RANGES)[number])
    ? Number(params.get('range'))
    : 30;
  const end = new Date();
  return {
    from: isoDay(new Date(end.getTime() - (days - 1) * 86_400_000)),
    to: isoDay(end),
    label: `the last ${days} days`,
  };
}

/**
 * Stats tab: views and visitors per day (a chart, with its table a click away), the top posts,
 * referrers, devices and countries, and who is here now. Nothing identifies a reader: see the
 * docs/product.md#visit-statistics.
 */
export function StatsTab() {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const range = rangeOf(params);
  const postId = params.get('post');
  const [report, setReport] = useState<StatsReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [asTable, setAsTable] = useState(false);
  const [custom, setCustom] = useState({ from: range.from, to: range.to });

  useEffect(() => {
    const controller = new AbortController();
    setReport(null);
    setError(null);
    const query = `from=${range.from}&to=${range.to}${postId ? `&postId=${encodeURIComponent(postId)}` : ''}`;
    api
      .request<StatsReport>(`/api/admin/stats?${query}`, { signal: controller.signal })
      .then(setReport, (cause: unknown) => {
        if (!controller.signal.aborted) setError(errorMessage(cause, 'Could not load the statistics'));
      });
    return () => controller.abort();
  }, [api, range.from, range.to, postId]);

  const open = (changes: Record<string, string | null>) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) next.delete(key);
        else next.set(key, value);
      }
      return next;
    });
  const totals = report?.days.reduce(
    (sum, d) => ({ views: sum.views + d.views, visitors: sum.visitors + d.visitors }),
    {
      views: 0,
      visitors: 0,
    },
  );
  const postTitle = report?.topPosts.find((p) => String(p.postId) === postId)?.title;

  return (
    <section className="card" aria-labelledby="stats-heading">
      <h2 id="stats-heading">Statistics{postId ? `: ${postTitle ?? `post ${postId}`}` : ''}</h2>
      <p className="field-hint">
        No cookies and nothing that identifies a reader: a visitor is counted once a day, bots, Do Not Track
        and your own visits are left out.
      </p>
      <div className="stats-controls" role="group" aria-label="Period">
        {RANGES.map((days) => (
          <button
            key={days}
            type="button"
            className={`button button-secondary${params.get('range') === days || (!params.get('range') && !params.get('from') && days === '30') ? ' active' : ''}`}
            aria-pressed={
              params.get('range') === days || (!params.get('range') && !params.get('from') && days === '30')
            }
            onClick={() => open({ range: days, from: null, to: null })}
          >
            {days} days
          </button>
        ))}
        <form
          className="stats-custom"
          onSubmit={(event) => {
            event.preventDefault();
            open({ range: null, from: custom.from, to: custom.to });
          }}
        >
          <label htmlFor="stats-from">From</label>
          <input
            id="stats-from"
            type="date"
            value={custom.from}
            onChange={(e) => setCustom({ ...custom, from: e.target.value })}
          />
          <label htmlFor="stats-to">To</label>
          <input
            id="stats-to"
            type="date"
            value={custom.to}
            onChange={(e) => setCustom({ ...custom, to: e.target.value })}
          />
          <button type="submit" className="button button-secondary">
            Show
          </button>
        </form>
        {postId && (
          <button type="button" className="button button-secondary" onClick={() => open({ post: null })}>
            Whole site
          </button>
        )}
      </div>
      {!report && !error && <p role="status">Loading the statistics...</p>}
      {error && <ErrorLine error={error} />}
      {report && totals && (
        <>
          <p className="stats-summary" role="status">
            {totals.views} {totals.views === 1 ? 'view' : 'views'} by {totals.visitors}{' '}
            {totals.visitors === 1 ? 'visitor' : 'visitors'} in {range.label} · {report.live} visitor
            {report.live === 1 ? '' : 's'} in the last 5 minutes
          </p>
          {totals.views === 0 ? (
            <p>No views in this period yet.</p>
          ) : (
            <>
              <DaysChart days={report.days} label={range.label} />
              <button
                type="button"
                className="button button-secondary"
                aria-expanded={asTable}
                onClick={() => setAsTable(!asTable)}
              >
                {asTable ? 'Hide the table' : 'Show the chart as a table'}
              </button>
              {asTable && (
                <table className="table stats-days">
                  <caption>Views and visitors per day, {range.label}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      <th scope="col">Views</th>
                      <th scope="col">Visitors</th>
                    </tr>
                  </thead>
                  <tbody>
                    {report.days.map((d) => (
                      <tr key={d.date}>
                        <th scope="row">{d.date}</th>
                        <td>{d.views}</td>
                        <td>{d.visitors}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </>
          )}
          <div className="stats-tables">
            {!postId && (
              <table className="table">
                <caption>Top posts</caption>
                <thead>
                  <tr>
                    <th scope="col">Post</th>
                    <th scope="col">Views</th>
                    <th scope="col">Visitors</th>
                  </tr>
                </thead>
                <tbody>
                  {report.topPosts.length === 0 && (
                    <tr>
                      <td colSpan={3}>No post read yet.</td>
                    </tr>
                  )}
                  {report.topPosts.map((p) => (
                    <tr key={p.postId}>
                      <th scope="row">
                        {p.url ? <a href={p.url}>{p.title}</a> : p.title} (
                        <Link to={`/admin?tab=stats&post=${p.postId}`}>
                          statistics<span className="visually-hidden"> of {p.title}</span>
                        </Link>
                        )
                      </th>
                      <td>{p.views}</td>
                      <td>{p.visitors}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <Facet
              caption="Referrers"
              rows={report.referrers.map((r) => [r.host, r.views])}
              empty="No referrer yet."
            />
            <Facet
              caption="Devices"
              rows={report.devices.map((d) => [d.device, d.views])}
              empty="No views yet."
            />
            {report.countries.length > 0 && (
              <Facet caption="Countries" rows={report.countries.map((c) => [c.country, c.views])} empty="" />
            )}
          </div>
        </>
      )}
    </section>
  );
}

function Facet({ caption, rows, empty }: { caption: string; rows: [string, number][]; empty: string }) {
  return (
    <table className="table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{caption.replace(/s$/, '')}</th>
          <th scope="col">Views</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={2}>{empty}</td>
          </tr>
        )}
        {rows.map(([name, views]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{views}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Views as bars and visitors as a line, hand-made SVG (no chart library in the bundle). */
function DaysChart({ days, label }: { days: StatsReport['days']; label: string }) {
  const width = 640;
  const height = 200;
  const pad = 24;
  const top = Math.max(1, ...days.map((d) => d.views));
  const step = (width - pad * 2) / days.length;
  const y = (value: number) => height - pad - (value / top) * (height - pad * 2);
  const line = days.map((d, i) => `${pad + step * i + step / 2},${y(d.visitors)}`).join(' ');
  return (
    <figure className="stats-chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`Views (bars) and visitors (line) per day, ${label}; the table below has the figures`}
      >
        <line x1={pad} y1={height - pad} x2={width - pad} y2={height - pad} className="stats-axis" />
        {days.map((d, i) => (
          <rect
            key={d.date}
            x={pad + step * i + step * 0.15}
            y={y(d.views)}
            width={step * 0.7}
            height={height - pad - y(d.views)}
            className="stats-bar"
          >
            <title>{`${d.date}: ${d.views} views, ${d.visitors} visitors`}</title>
          </rect>
        ))}
        <polyline points={line} className="stats-line" />
        <text x={pad} y={pad - 8} className="stats-label">
          {top} views
        </text>
        <text x={pad} y={height - 6} className="stats-label">
          {days[0]?.date}
        </text>
        <text x={width - pad} y={height - 6} textAnchor="end" className="stats-label">
          {days.at(-1)?.date}
        </text>
      </svg>
      <figcaption>
        <span className="stats-key stats-key-views" aria-hidden="true" /> views{' '}
        <span className="stats-key stats-key-visitors" aria-hidden="true" /> visitors
      </figcaption>
    </figure>
  );
}
