/** The validated config/site.json (SITE_CONFIG): it seeds the site settings on the first start. */
export const SEED_SITE_CONFIG = Symbol('SEED_SITE_CONFIG');
export const STORAGE = Symbol('STORAGE');
export const POSTS_CONFIG = Symbol('POSTS_CONFIG');
