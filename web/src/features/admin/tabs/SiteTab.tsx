import { type SiteConfig } from '@blog/contracts/site';
import { fediverseOf, newsletterOf } from '@blog/contracts/site-settings';
import { useEffect, useState, type ReactNode } from 'react';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine, Field, StatusLine, SubmitButton, useSubmit } from '../../../components/ui';
import { useReplaceSite } from '../../../site/SiteContext';
import { FediverseSiteFields } from '../fediverse/FediverseSiteFields';
import { fediverseFieldErrors } from '../fediverse/fediverseTab';
import { getSite, saveSite, uploadBanner } from '../lib/adminApi';
import { TreeEditor } from './TreeEditor';
import { treeForSave, type TreeMove } from './tree-rules';

/** The input of each fediverse field whose error can stop a save. */
const FEDIVERSE_FIELD_IDS = {
  handle: 'site-fediverse-handle',
  avatarImage: 'site-fediverse-avatar',
  alsoKnownAs: 'site-fediverse-aliases',
  movedTo: 'site-fediverse-moved-to',
};

/**
 * Site tab: the site's texts, whether visitors may register, and the category tree. Saving
 * sends the whole configuration (the shape GET /api/site answers) with the moves of removed
 * nodes' posts; the server names a wrong value, or says how many posts a removed node holds.
 */
export function SiteTab() {
  const api = useApi();
  const replaceSite = useReplaceSite();
  const [site, setSite] = useState<SiteConfig | null>(null);
  const [loadError, setLoadError] = useState(false);
  const { pending: saving, message, submit } = useSubmit();
  const [moves, setMoves] = useState<TreeMove[]>([]);

  useEffect(() => {
    const controller = new AbortController();
    getSite(api, controller.signal).then(setSite, () => {
      if (!controller.signal.aborted) setLoadError(true);
    });
    return () => controller.abort();
  }, [api]);

  const save = (site: SiteConfig) =>
    submit(
      async () => {
        const saved = await saveSite(api, treeForSave(site), moves);
        setSite(saved);
        setMoves([]);
        replaceSite(saved);
        return 'Site settings saved.';
      },
      { failure: (error) => `Error: ${errorMessage(error, 'Could not save the site settings')}` },
    );

  const [banner, setBanner] = useState<File | null>(null);
  const bannerUpload = useSubmit();

  // The banner is saved on its own: only bannerImage is taken from the answer, so edits
  // not yet saved in the form below stay as they are.
  const upload = (banner: File) =>
    bannerUpload.submit(
      async () => {
        const saved = await uploadBanner(api, banner);
        setSite((current) => (current ? { ...current, bannerImage: saved.bannerImage } : saved));
        replaceSite(saved);
        setBanner(null);
        return 'Banner uploaded.';
      },
      { failure: (error) => `Error: ${errorMessage(error, 'Could not upload the banner')}` },
    );

  const text = (
    id: string,
    label: string,
    value: string,
    onChange: (value: string) => void,
    long = false,
  ): ReactNode => (
    <Field id={id} label={label}>
      {long ? (
        <textarea id={id} rows={4} value={value} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input id={id} value={value} onChange={(e) => onChange(e.target.value)} />
      )}
    </Field>
  );

  return (
    <section className="card" aria-labelledby="site-heading">
      <h2 id="site-heading">Site</h2>
      {!site && !loadError && <p role="status">Loading the site settings...</p>}
      {loadError && <ErrorLine error="Could not load the site settings." />}
      {site && (
        <div className="admin-banner">
          <img src={site.bannerImage} alt="The current banner" width={600} height={100} />
          <Field id="site-banner" label="Banner image">
            <input
              id="site-banner"
              type="file"
              accept="image/*"
              onChange={(event) => setBanner(event.target.files?.[0] ?? null)}
            />
          </Field>
          <button
            type="button"
            className="button button-secondary"
            disabled={!banner || bannerUpload.pending}
            onClick={() => {
              if (banner) void upload(banner);
            }}
          >
            {bannerUpload.pending ? 'Uploading...' : 'Upload banner'}
          </button>
          <StatusLine
            message={
              bannerUpload.pending
                ? { kind: 'success', text: 'Processing the banner...' }
                : bannerUpload.message
            }
          />
        </div>
      )}
      {site && (
        <form
          className="form admin-site"
          onSubmit={(event) => {
            event.preventDefault();
            // A wrong fediverse field is named under it; the first one takes the focus.
            const wrong = Object.keys(fediverseFieldErrors(fediverseOf(site)))[0];
            if (wrong) {
              document
                .getElementById(FEDIVERSE_FIELD_IDS[wrong as keyof typeof FEDIVERSE_FIELD_IDS])
                ?.focus();
              return;
            }
            void save(site);
          }}
        >
          {text('site-title', 'Site title', site.title, (title) => setSite({ ...site, title }))}
          {text('site-search-title', 'Search results title', site.searchTitle, (searchTitle) =>
            setSite({ ...site, searchTitle }),
          )}
          {text('site-welcome-title', 'Welcome title', site.welcome.title, (title) =>
            setSite({ ...site, welcome: { ...site.welcome, title } }),
          )}
          {text(
            'site-welcome-text',
            'Welcome text',
            site.welcome.text,
            (t) => setSite({ ...site, welcome: { ...site.welcome, text: t } }),
            true,
          )}
          {text('site-about-title', 'About title', site.about.title, (title) =>
            setSite({ ...site, about: { ...site.about, title } }),
          )}
          {text(
            'site-about-text',
            'About text',
            site.about.text,
            (t) => setSite({ ...site, about: { ...site.about, text: t } }),
            true,
          )}
          {text('site-footer', 'Footer text', site.footerText, (footerText) =>
            setSite({ ...site, footerText }),
          )}
          <label className="admin-switch">
            <input
              type="checkbox"
              role="switch"
              checked={site.registrationOpen}
              onChange={(event) => setSite({ ...site, registrationOpen: event.target.checked })}
            />
            <span>Visitors may create accounts</span>
            <span className="admin-switch-state">{site.registrationOpen ? 'On' : 'Off'}</span>
          </label>
          <label className="admin-switch">
            <input
              type="checkbox"
              role="switch"
              checked={newsletterOf(site).sendByDefault}
              onChange={(event) =>
                setSite({
                  ...site,
                  newsletter: { ...newsletterOf(site), sendByDefault: event.target.checked },
                })
              }
            />
            <span>Send by e-mail: ticked for new posts</span>
            <span className="admin-switch-state">{newsletterOf(site).sendByDefault ? 'On' : 'Off'}</span>
          </label>
          <FediverseSiteFields site={site} onChange={setSite} />
          <TreeEditor
            categories={site.categories}
            onChange={(categories) => setSite({ ...site, categories })}
            onMove={(move) => setMoves((list) => [...list, move])}
          />
          <div className="admin-actions">
            <SubmitButton pending={saving} pendingLabel="Saving...">
              Save Site
            </SubmitButton>
          </div>
          <StatusLine message={message} />
        </form>
      )}
    </section>
  );
}
