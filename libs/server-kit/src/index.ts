export * from './config.js';
export * from './logging.js';
export * from './rpc-error.js';
export * from './service.js';
export * from './database.js';
export * from './health.controller.js';
export * from './service-core.module.js';
