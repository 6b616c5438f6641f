export * from './errors.js';
export * from './roles.js';
export * from './auth.js';
export * from './token.js';
export * from './rpc.js';
export * from './session.js';
export * from './site.js';
export * from './urls.js';
