import { useState } from 'react';
import type { FediversePostFormat, QuotePolicy, SiteConfig } from '@blog/contracts/site';
import { fediverseOf } from '@blog/contracts/site-settings';
import { ErrorLine, Field } from '../../../components/ui';
import './fediverse-tab.css';
import { fediverseFieldErrors } from './fediverseTab';

/**
 * The Site tab's fediverse settings: the handle (`@handle@host`), whether follow requests wait
 * for approval, the avatar (a path of this site, such as the banner's), how posts look on
 * Mastodon, who may quote them, search consent, the blog's other accounts and where its
 * followers moved. A wrong value is named under its field as it is typed.
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
  // One account a line; the list keeps the lines with text (the box keeps what is being typed).
  const [aliases, setAliases] = useState(settings.alsoKnownAs.join('\n'));
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
      <Field id="site-fediverse-post-format" label="How posts look on Mastodon">
        <select
          id="site-fediverse-post-format"
          value={settings.postFormat}
          aria-describedby="site-fediverse-post-format-hint"
          onChange={(event) => set({ postFormat: event.target.value as FediversePostFormat })}
        >
          <option value="article">Article: the title and a link</option>
          <option value="note">Note: the title, the whole text and the link</option>
        </select>
        <p id="site-fediverse-post-format-hint" className="admin-hint">
          Mastodon shows a Note's whole text in the timeline, an Article as little more than a link.
        </p>
      </Field>
      <Field id="site-fediverse-quote-policy" label="Who may quote your posts">
        <select
          id="site-fediverse-quote-policy"
          value={settings.quotePolicy}
          aria-describedby="site-fediverse-quote-policy-hint"
          onChange={(event) => set({ quotePolicy: event.target.value as QuotePolicy })}
        >
          <option value="anyone">Anyone</option>
          <option value="followers">Followers only</option>
          <option value="nobody">Nobody</option>
        </select>
        <p id="site-fediverse-quote-policy-hint" className="admin-hint">
          A quote links back to the post; the blog answers each request to quote by this rule.
        </p>
      </Field>
      <label className="admin-switch">
        <input
          type="checkbox"
          role="switch"
          checked={settings.indexable}
          onChange={(event) => set({ indexable: event.target.checked })}
        />
        <span>Posts may be found by full-text search on other servers</span>
        <span className="admin-switch-state">{settings.indexable ? 'On' : 'Off'}</span>
      </label>
      <label className="admin-switch">
        <input
          type="checkbox"
          role="switch"
          checked={settings.discoverable}
          onChange={(event) => set({ discoverable: event.target.checked })}
        />
        <span>The blog may be suggested in directories and profile search</span>
        <span className="admin-switch-state">{settings.discoverable ? 'On' : 'Off'}</span>
      </label>
      <label className="admin-switch">
        <input
          type="checkbox"
          role="switch"
          checked={settings.showFollowing}
          onChange={(event) => set({ showFollowing: event.target.checked })}
        />
        <span>Show the accounts the blog follows (off: only how many)</span>
        <span className="admin-switch-state">{settings.showFollowing ? 'On' : 'Off'}</span>
      </label>
      <Field id="site-fediverse-aliases" label="Other accounts of yours (one address a line)">
        <textarea
          id="site-fediverse-aliases"
          rows={2}
          value={aliases}
          spellCheck={false}
          placeholder="https://mastodon.example/users/you"
          aria-invalid={errors.alsoKnownAs ? true : undefined}
          aria-describedby="site-fediverse-aliases-hint site-fediverse-aliases-error"
          onChange={(event) => {
            setAliases(event.target.value);
            set({
              alsoKnownAs: event.target.value
                .split('\n')
                .map((line) => line.trim())
                .filter(Boolean),
            });
          }}
        />
        <p id="site-fediverse-aliases-hint" className="admin-hint">
          To move a Mastodon account's followers here, list that account, then start the move there.
        </p>
        <ErrorLine id="site-fediverse-aliases-error" error={errors.alsoKnownAs} />
      </Field>
      {settings.movedTo && (
        <Field id="site-fediverse-moved-to" label="Followers moved to">
          <input
            id="site-fediverse-moved-to"
            value={settings.movedTo}
            spellCheck={false}
            aria-invalid={errors.movedTo ? true : undefined}
            aria-describedby="site-fediverse-moved-to-hint site-fediverse-moved-to-error"
            onChange={(event) => set({ movedTo: event.target.value.trim() })}
          />
          <p id="site-fediverse-moved-to-hint" className="admin-hint">
            The blog's profile points there.{' '}
            <button
              type="button"
              className="button button-small button-secondary"
              onClick={() => set({ movedTo: '' })}
            >
              Clear
            </button>
          </p>
          <ErrorLine id="site-fediverse-moved-to-error" error={errors.movedTo} />
        </Field>
      )}
    </fieldset>
  );
}
