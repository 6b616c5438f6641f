import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import {
  Patterns,
  statsQuerySchema,
  viewBeaconSchema,
  type StatsQuery,
  type StatsReport,
  type ViewBeacon,
} from '@blog/contracts';
import type { Request } from 'express';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { ViewCounter } from './view-counter.js';

/** The page-view beacon, and the Stats tab's figures. */
@Controller('api')
export class StatsController {
  constructor(
    private readonly views: ViewCounter,
    private readonly services: ServiceClients,
  ) {}

  /** 204 whether counted or not (a reader learns nothing from it); 400 for a malformed body. */
  @Post('views')
  @HttpCode(204)
  async view(@Body(new ZodPipe(viewBeaconSchema)) beacon: ViewBeacon, @Req() req: Request): Promise<void> {
    await this.views.count(req, beacon);
  }

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
    return this.services.read<StatsReport>('posts', Patterns.posts.stats, query);
  }
}
