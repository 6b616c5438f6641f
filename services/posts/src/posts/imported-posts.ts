import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MediaItem } from './media-item.entity.js';

/** A post an import brought before: its id, the identity it has now and its media. */
export interface ImportedPost {
  id: number;
  sourceId: string;
  media: MediaItem[];
}

/** The posts of earlier imports, found by their identity in their source blog (posts.posts.source_id). */
@Injectable()
export class ImportedPosts {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The post known by `sourceId` or, failing that, by one of `formerIds` (an earlier
   * importer's identities for it), with its media; null when no import brought it.
   */
  async find(sourceId: string, formerIds: string[] = []): Promise<ImportedPost | null> {
    const [row] = (await this.db.query(
      `SELECT id, source_id FROM posts.posts WHERE source_id = ANY($1)
       ORDER BY source_id = $2 DESC LIMIT 1`,
      [[sourceId, ...formerIds], sourceId],
    )) as { id: number; source_id: string }[];
    if (!row) return null;
    const media = await this.db.getRepository(MediaItem).findBy({ postId: row.id });
    return { id: row.id, sourceId: row.source_id, media };
  }
}
