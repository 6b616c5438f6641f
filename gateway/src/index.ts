export { createGateway } from './app.js';
export { loadGatewayConfig, type GatewayConfig } from './config.js';
