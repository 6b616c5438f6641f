import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope, type SiteConfig } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { SiteSettings } from './site-settings.js';

/** The site configuration (texts, banner, registration, category tree): GET /api/site and the dashboard's Site tab. */
@Controller()
export class SiteController {
  constructor(private readonly settings: SiteSettings) {}

  @MessagePattern(Patterns.posts.site)
  get(): Promise<SiteConfig> {
    return this.settings.latest();
  }

  @MessagePattern(Patterns.posts.siteVersion)
  version(): number {
    return this.settings.currentVersion();
  }

  @MessagePattern(Patterns.posts.updateSite)
  update(@Payload() message: RpcEnvelope<unknown>) {
    const { site, moves, idempotency } = parseRequest(Patterns.posts.updateSite, message);
    return this.settings.update(site, moves, idempotency);
  }

  @MessagePattern(Patterns.posts.siteRedirects)
  redirects(): Promise<Record<string, string>> {
    return this.settings.latestRedirects();
  }
}
