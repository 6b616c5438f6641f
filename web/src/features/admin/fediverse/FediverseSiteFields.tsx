import { fediverseOf, type SiteConfig } from '@blog/contracts/site';
import { ErrorLine, Field } from '../../../components/ui';
import './fediverse-tab.css';
import { fediverseFieldErrors } from './fediverseTab';

/**
 * The Site tab's fediverse settings: the handle (`@handle@host`), whether follow requests wait
 * for approval, and the avatar (a path of this site, such as the banner's). A wrong value is
 * named under its field as it is typed.
 */
export function FediverseSiteFields({
  site,
  onChange,
}: {
  site: SiteConfig;
  onChange(site: SiteConfig): void;
}) {
  const settings = fediverseOf(site);
  const errors = fediverseFieldErrors(settings);
  const set = (change: Partial<typeof settings>) =>
    onChange({ ...site, fediverse: { ...settings, ...change } });
  return (
    <fieldset className="admin-fediverse-fields">
      <legend>Fediverse</legend>
      <Field id="site-fediverse-handle" label="Fediverse handle">
        <div className="admin-handle-input">
          <span aria-hidden="true">@</span>
          <input
            id="site-fediverse-handle"
            value={settings.handle}
            autoCapitalize="off"
            autoComplete="off"
            spellCheck={false}
            aria-invalid={errors.handle ? true : undefined}
            aria-describedby="site-fediverse-handle-hint site-fediverse-handle-error"
            onChange={(event) => set({ handle: event.target.value })}
          />
          {site.host && <span aria-hidden="true">@{site.host}</span>}
        </div>
        <p id="site-fediverse-handle-hint" className="admin-hint">
          {site.host
            ? `Followers find the blog as @${settings.handle || 'handle'}@${site.host}.`
            : 'Followers find the blog by this name on its server.'}{' '}
          Lowercase letters, digits and "_".
        </p>
        <ErrorLine id="site-fediverse-handle-error" error={errors.handle} />
      </Field>
      <label className="admin-switch">
        <input
          type="checkbox"
          role="switch"
          checked={settings.approveFollowers}
          onChange={(event) => set({ approveFollowers: event.target.checked })}
        />
        <span>Approve followers before they follow</span>
        <span className="admin-switch-state">{settings.approveFollowers ? 'On' : 'Off'}</span>
      </label>
      <Field id="site-fediverse-avatar" label="Avatar image (a path of this site)">
        <input
          id="site-fediverse-avatar"
          value={settings.avatarImage}
          placeholder="/uploads/..."
          spellCheck={false}
          aria-invalid={errors.avatarImage ? true : undefined}
          aria-describedby="site-fediverse-avatar-hint site-fediverse-avatar-error"
          onChange={(event) => set({ avatarImage: event.target.value.trim() })}
        />
        <p id="site-fediverse-avatar-hint" className="admin-hint">
          The picture beside the blog's name on Mastodon: the path of an uploaded picture, or empty for none.{' '}
          {site.bannerImage.startsWith('/') && (
            <button
              type="button"
              className="button button-small button-secondary"
              onClick={() => set({ avatarImage: site.bannerImage })}
            >
              Use the banner
            </button>
          )}
        </p>
        <ErrorLine id="site-fediverse-avatar-error" error={errors.avatarImage} />
      </Field>
    </fieldset>
  );
}
