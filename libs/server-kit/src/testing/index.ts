export * from './postgres.js';
export * from './ports.js';
