import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { Patterns, type BackupList, type BackupRunView } from '@blog/contracts';
import { AdminOnly } from '../common/auth.guard.js';
import { ServiceClients } from '../rpc/service-clients.js';

/**
 * The blog's own backups, taken by the posts service (on its schedule, or now): started here,
 * listed with the next scheduled one, and followed by id while one runs.
 */
@Controller('api/admin/backups')
export class BackupsController {
  constructor(private readonly services: ServiceClients) {}

  /** 202 with the new backup, or the one already running (never a second at once). */
  @Post()
  @HttpCode(202)
  @AdminOnly()
  start(): Promise<BackupRunView> {
    return this.services.call('posts', Patterns.posts.backupStart, {});
  }

  @Get()
  @AdminOnly()
  list(): Promise<BackupList> {
    return this.services.read('posts', Patterns.posts.backupList, {});
  }

  @Get(':id')
  @AdminOnly()
  get(@Param('id') id: string): Promise<BackupRunView> {
    return this.services.read('posts', Patterns.posts.backupGet, { id });
  }
}
