import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ArchiveBlog } from '@blog/contracts';
import { DataSource } from 'typeorm';
import type { PostsConfig } from '../config.js';
import { POSTS_CONFIG } from '../tokens.js';

/**
 * Whether an archive was made by the blog whose identity is `here`: the same id (the same
 * database), or the same public address (the blog moved to a new server and kept its
 * address). An archive without an identity (made before archives carried one) is another's.
 */
export function madeByThisBlog(archive: ArchiveBlog | undefined, here: ArchiveBlog): boolean {
  if (!archive) return false;
  if (archive.id === here.id) return true;
  return Boolean(archive.url && here.url && archive.url.toLowerCase() === here.url.toLowerCase());
}

/** This blog's identity (ArchiveBlog): the id its database made once, and SITE_URL. */
@Injectable()
export class BlogIdentity {
  private id?: string;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(POSTS_CONFIG) private readonly config: PostsConfig,
  ) {}

  async current(): Promise<ArchiveBlog> {
    if (!this.id) {
      const [row] = (await this.db.query(`SELECT blog_id FROM posts.site_settings WHERE id = 1`)) as {
        blog_id: string;
      }[];
      if (!row) throw new Error('The site settings are not seeded yet');
      this.id = row.blog_id;
    }
    return { id: this.id, url: this.config.SITE_URL ?? null };
  }
}
