/** The site's title (from the site config), used in e-mail subjects and bodies. */
export const SITE_TITLE = Symbol('SITE_TITLE');
