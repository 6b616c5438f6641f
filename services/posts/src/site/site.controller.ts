import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { Patterns, type SiteConfig } from '@blog/contracts';
import { SITE_CONFIG } from '../tokens.js';

/** The validated site config (texts and category tree) for the gateway's GET /api/site. */
@Controller()
export class SiteController {
  constructor(@Inject(SITE_CONFIG) private readonly site: SiteConfig) {}

  @MessagePattern(Patterns.posts.site)
  get(): SiteConfig {
    return this.site;
  }
}
