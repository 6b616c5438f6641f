import {
  DEFAULT_FEDIVERSE_HANDLE,
  type FediversePostFormat,
  type FediverseSettings,
  type NewsletterSettings,
  type QuotePolicy,
  type SiteConfig,
} from './site.js';

/*
 * The owner's newsletter and fediverse settings: their defaults, and the rules for what the owner
 * may type (the dashboard's form and the server's schema check the same ones). Only the dashboard
 * and the servers use them: kept apart from site.ts so the reader's script does not carry them.
 */

export const FEDIVERSE_POST_FORMATS = ['article', 'note'] as const satisfies readonly FediversePostFormat[];
export const QUOTE_POLICIES = ['anyone', 'followers', 'nobody'] as const satisfies readonly QuotePolicy[];
/** A handful of earlier accounts; Mastodon itself allows a few aliases. */
export const ALSO_KNOWN_AS_MAX = 10;
export const FEDIVERSE_ACCOUNT_URI_MAX = 500;
export const FEDIVERSE_ACCOUNT_URI_ERROR = 'an account must be the http(s) URL of its actor';

/** The fediverse handle: like a username (docs/product.md), since it is one on other servers. */
export const FEDIVERSE_HANDLE = /^[a-z0-9_]{1,30}$/;
export const FEDIVERSE_HANDLE_ERROR = 'fediverse handle must be 1-30 lowercase letters, digits or "_"';
/** The avatar: a path of this site (an upload, the banner) or empty. */
export const FEDIVERSE_AVATAR = /^(\/[^\s]*)?$/;
export const FEDIVERSE_AVATAR_MAX = 500;
export const FEDIVERSE_AVATAR_ERROR =
  'fediverse avatar must be a path of this site (starting with "/") or empty';

export const NEWSLETTER_DEFAULTS: NewsletterSettings = { sendByDefault: false };

export function newsletterOf(site: Pick<SiteConfig, 'newsletter'>): NewsletterSettings {
  return { ...NEWSLETTER_DEFAULTS, ...site.newsletter };
}

export const FEDIVERSE_DEFAULTS: FediverseSettings = {
  handle: DEFAULT_FEDIVERSE_HANDLE,
  approveFollowers: false,
  avatarImage: '',
  postFormat: 'article',
  // A blog writes to be read and cited: a quote links back to the post. The owner can narrow it.
  quotePolicy: 'anyone',
  alsoKnownAs: [],
  movedTo: '',
  // The posts are public web pages that search engines index already.
  indexable: true,
  discoverable: true,
  // Mastodon shows whom an account follows unless its owner hides it: the same here.
  showFollowing: true,
};

/** The site's fediverse settings, the defaults filling what an older stored configuration lacks. */
export function fediverseOf(site: Pick<SiteConfig, 'fediverse'>): FediverseSettings {
  return { ...FEDIVERSE_DEFAULTS, ...site.fediverse };
}
