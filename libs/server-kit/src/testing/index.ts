export * from './postgres.js';
export * from './ports.js';
export * from './nats.js';
