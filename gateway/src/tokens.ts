export const STORAGE = Symbol('STORAGE');
export const PUBLIC_CACHE = Symbol('PUBLIC_CACHE');
