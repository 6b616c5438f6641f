import { Inject, Injectable } from '@nestjs/common';
import type { ArchiveBlog } from '@blog/contracts';
import type { PostsConfig } from '../config.js';
import { SiteSettingsRepository } from '../site/site-settings.repository.js';
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
    private readonly site: SiteSettingsRepository,
    @Inject(POSTS_CONFIG) private readonly config: PostsConfig,
  ) {}

  async current(): Promise<ArchiveBlog> {
    if (!this.id) {
      const id = await this.site.blogId();
      if (!id) throw new Error('The site settings are not seeded yet');
      this.id = id;
    }
    return { id: this.id, url: this.config.SITE_URL ?? null };
  }
}
