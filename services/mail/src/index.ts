import 'reflect-metadata';
import { startService } from '@blog/server-kit';
import { MailModule } from './app.module.js';
import type { MailConfig } from './config.js';

export { loadMailConfig, type MailConfig } from './config.js';

export function startMailService(config: MailConfig) {
  return startService(MailModule.forRoot(config), {
    name: 'mail',
    host: config.BIND_HOST,
    port: config.MAIL_PORT,
    logLevel: config.LOG_LEVEL,
  });
}
