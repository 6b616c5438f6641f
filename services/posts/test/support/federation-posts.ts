import { reservedSegments } from '@blog/contracts';
import { dataSourceOptions, IdempotencyLedger, openMigrated, type ObjectStorage } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import type { DataSource } from 'typeorm';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../../src/migrations/index.js';
import { ContentService } from '../../src/content/content.service.js';
import { FederationEvents } from '../../src/federation/federation-events.js';
import { FederationEventsRepository } from '../../src/federation/federation-events.repository.js';
import { MediaItem } from '../../src/posts/media-item.entity.js';
import { Post } from '../../src/posts/post.entity.js';
import { PostgresPostsRepository } from '../../src/posts/posts.repository.js';
import { PostsService } from '../../src/posts/posts.service.js';
import { PostSearchRepository } from '../../src/search/post-search.repository.js';
import type { SiteSettings } from '../../src/site/site-settings.js';
import { garageSite } from './garage-site.js';

/** PostsService with its federation events on a migrated test database (the federation specs). */
export interface FederationPosts {
  db: TestDatabase;
  source: DataSource;
  settings: SiteSettings;
  stored: PostgresPostsRepository;
  content: ContentService;
  events: FederationEvents;
  posts: PostsService;
  close(): Promise<void>;
}

export async function openFederationPosts(name: string): Promise<FederationPosts> {
  const db = await createTestDatabase(name);
  const source = await openMigrated(
    dataSourceOptions({
      url: db.url,
      schema: 'posts',
      entities: [Post, MediaItem],
      migrations: POSTS_MIGRATIONS,
    }),
    'posts',
  );
  const site = garageSite(['Car One']);
  const settings = {
    current: () => site,
    reservedSegments: () => reservedSegments(site),
  } as unknown as SiteSettings;
  // The specs write media rows directly (no files), so object storage is never asked.
  const storage = { deleteMany: async () => undefined } as unknown as ObjectStorage;
  const stored = new PostgresPostsRepository(source, new PostSearchRepository(source));
  const content = new ContentService(stored);
  const events = new FederationEvents(new FederationEventsRepository(source));
  const posts = new PostsService(settings, storage, content, new IdempotencyLedger(source), stored, events);
  return {
    db,
    source,
    settings,
    stored,
    content,
    events,
    posts,
    async close() {
      await source.destroy();
      await db.drop();
    },
  };
}
