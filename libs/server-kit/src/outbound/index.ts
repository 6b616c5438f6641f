export * from './address-policy.js';
export * from './outbound-fetcher.js';
export * from './web-fetch.js';
