import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { buildPostPath, Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { SiteSettings } from '../site/site-settings.js';
import { ImportRunner } from './import-runner.js';
import { ImportsRepository } from './imports.repository.js';

/** The dashboard's imports, and the old URLs of imported posts. */
@Controller()
export class ImportController {
  constructor(
    private readonly imports: ImportRunner,
    private readonly settings: SiteSettings,
    private readonly store: ImportsRepository,
  ) {}

  @MessagePattern(Patterns.posts.importStart)
  start(@Payload() message: RpcEnvelope<unknown>) {
    return this.imports.start(message.data);
  }

  @MessagePattern(Patterns.posts.importReport)
  report(@Payload() message: RpcEnvelope<{ id?: unknown }>) {
    return this.imports.report(String(message.data?.id ?? ''));
  }

  /** The current path of the post an old URL ("/?p=12", "/2019/05/my-post") belonged to, or null. */
  @MessagePattern(Patterns.posts.oldPath)
  async oldPath(@Payload() message: RpcEnvelope<unknown>): Promise<string | null> {
    const { path } = parseRequest(Patterns.posts.oldPath, message);
    const post = await this.store.postOfOldPath(path);
    return post ? buildPostPath(this.settings.current(), post) : null;
  }
}
