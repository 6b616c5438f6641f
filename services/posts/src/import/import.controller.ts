import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { buildPostPath, Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SiteSettings } from '../site/site-settings.js';
import { VISIBILITY_SQL } from '../posts/visibility.js';
import { ImportRunner } from './import-runner.js';

/** The dashboard's imports, and the old URLs of imported posts. */
@Controller()
export class ImportController {
  constructor(
    private readonly imports: ImportRunner,
    private readonly settings: SiteSettings,
    @InjectDataSource() private readonly db: DataSource,
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
    const [row] = (await this.db.query(
      `SELECT p.slug, p.category, p.submenu1, p.submenu2 FROM posts.post_old_paths o
       JOIN posts.posts p ON p.id = o.post_id WHERE o.path = $1 AND ${VISIBILITY_SQL.visible}`,
      [path],
    )) as { slug: string; category: string; submenu1: string; submenu2: string | null }[];
    return row ? buildPostPath(this.settings.current(), row) : null;
  }
}
