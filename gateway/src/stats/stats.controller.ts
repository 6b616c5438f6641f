import { Controller, Get, Query } from '@nestjs/common';
import { Patterns, statsQuerySchema, type StatsQuery, type StatsReport } from '@blog/contracts';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';

/** The Stats tab's figures (the beacon itself is viewBeaconMiddleware). */
@Controller('api')
export class StatsController {
  constructor(private readonly services: ServiceClients) {}

  /** Views in the last 30 days of the posts named (`ids=1,2,3`), for the admin's post list. */
  @Get('admin/stats/recent')
  @AdminOnly()
  recent(@Query('ids') ids: unknown): Promise<Record<number, number>> {
    const list = String(ids ?? '')
      .split(',')
      .filter((id) => /^\d{1,9}$/.test(id))
      .slice(0, 200)
      .map(Number);
    return this.services.read('posts', Patterns.posts.recentViews, { ids: list });
  }

  @Get('admin/stats')
  @AdminOnly()
  stats(@Query(new ZodPipe(statsQuerySchema)) query: StatsQuery): Promise<StatsReport> {
    return this.services.read('posts', Patterns.posts.stats, query);
  }
}
