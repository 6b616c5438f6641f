export * from './postgres.js';
export * from './ports.js';
export * from './nats.js';
export * from './s3.js';
export * from './redis.js';
export * from './containers.js';
export * from './rpc-client.js';
