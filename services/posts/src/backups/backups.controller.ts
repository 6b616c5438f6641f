import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { BackupJobs } from './backup-jobs.js';

/** The dashboard's backups: started now, listed with the next scheduled one, followed by id. */
@Controller()
export class BackupsController {
  constructor(private readonly backups: BackupJobs) {}

  @MessagePattern(Patterns.posts.backupStart)
  start() {
    return this.backups.start();
  }

  @MessagePattern(Patterns.posts.backupList)
  list() {
    return this.backups.list();
  }

  @MessagePattern(Patterns.posts.backupGet)
  get(@Payload() message: RpcEnvelope<unknown>) {
    return this.backups.get(parseRequest(Patterns.posts.backupGet, message).id);
  }
}
