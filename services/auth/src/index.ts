import 'reflect-metadata';
import { startService } from '@blog/server-kit';
import { AuthModule } from './app.module.js';
import type { AuthConfig } from './config.js';

export { loadAuthConfig, type AuthConfig } from './config.js';
export { CREDENTIALS_FILE } from './admin-bootstrap.js';

export function startAuthService(config: AuthConfig) {
  return startService(AuthModule.forRoot(config), {
    name: 'auth',
    host: config.BIND_HOST,
    port: config.AUTH_PORT,
    transport: config,
    logLevel: config.LOG_LEVEL,
  });
}
