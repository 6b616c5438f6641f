/** The validated config/site.json (SITE_CONFIG): it seeds the site settings on the first start. */
export const SEED_SITE_CONFIG = Symbol('SEED_SITE_CONFIG');
export const STORAGE = Symbol('STORAGE');
export const POSTS_CONFIG = Symbol('POSTS_CONFIG');
/** Where the day's salt and visitor keys live (memory, or Redis with REDIS_URL): stats/visitor-store.ts. */
export const VISITOR_STORE = Symbol('VISITOR_STORE');
