import 'reflect-metadata';
import { loadSiteConfig, startService } from '@blog/server-kit';
import { MailModule } from './app.module.js';
import type { MailConfig } from './config.js';

export { loadMailConfig, type MailConfig } from './config.js';

export function startMailService(config: MailConfig) {
  const site = loadSiteConfig(config.SITE_CONFIG);
  return startService(MailModule.forRoot(config, { siteTitle: site.title }), {
    name: 'mail',
    host: config.BIND_HOST,
    port: config.MAIL_PORT,
    transport: config,
    logLevel: config.LOG_LEVEL,
  });
}
