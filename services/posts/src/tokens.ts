export const SITE_CONFIG = Symbol('SITE_CONFIG');
export const STORAGE = Symbol('STORAGE');
export const POSTS_CONFIG = Symbol('POSTS_CONFIG');
