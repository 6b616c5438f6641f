import { Inject, Injectable } from '@nestjs/common';
import {
  escapeRegExp,
  UPLOADS_PREFIX,
  type SiteNodeInfo,
  type UnifiedMediaInput,
  type UploadedFile,
} from '@blog/contracts';
import { ORIGINALS_PREFIX, type ObjectStorage } from '@blog/server-kit';
import { createHash } from 'node:crypto';
import type { MediaItem } from '../posts/media-item.entity.js';
import { PostsRepository } from '../posts/posts.repository.js';
import { PostsService } from '../posts/posts.service.js';
import { STORAGE } from '../tokens.js';
import { errorMessage } from './import-job.js';
import { IMPORT_LIMITS, ImportLimitError } from './import-limits.js';
import { reportError, type StoredReport } from './import-report.js';
import { MediaClient } from './media-client.js';
import { CommentsService } from '../comments/comments.service.js';
import { IMPORTED_COMMENTS_MAX, type ImportedComment } from '../comments/imported-comment.js';

/** A picture, video or YouTube video to bring with a post; `fetch` stores a file at the key it is given. */
export interface MediaToBring {
  ref: string;
  kind: 'image' | 'video' | 'youtube';
  url: string;
  /** What makes the file this file in its source (its URL, its path in the archive). */
  identity: string;
  alt?: string;
  caption?: string;
  title?: string;
  fetch?: (key: (ext: string) => string) => Promise<UploadedFile>;
}

/** A post of any source, mapped for this blog: its place chosen, its text Markdown, its media to bring. */
export interface PostToWrite {
  sourceId: string;
  /** Identities an earlier importer gave it (see SourcePost.formerSourceIds). */
  formerSourceIds?: string[];
  title: string;
  slug: string;
  content: string;
  status: 'draft' | 'published';
  date: Date | null;
  leaf: SiteNodeInfo;
  tags: string[];
  oldPaths: string[];
  crop?: { x: number; y: number; scale: number };
  media: MediaToBring[];
  /** Its comments from the source (approved ones for WordPress and Ghost; all for an archive). */
  comments?: ImportedComment[];
}

/**
 * Writes one mapped post with its media in one transaction (PostsService.saveImported, the same
 * rules as the form), matched by its source id: created, or updated when an earlier import
 * brought it. Files are stored first under keys made of the source id, the file's identity and
 * the import's id; a file an earlier import stored is used again, not fetched again.
 */
@Injectable()
export class ImportedPostWriter {
  constructor(
    private readonly stored: PostsRepository,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    private readonly posts: PostsService,
    private readonly media: MediaClient,
    private readonly comments: CommentsService,
  ) {}

  /** Answers whether the post existed already. */
  async write(importId: string, post: PostToWrite, report: StoredReport): Promise<boolean> {
    // What the form would refuse is refused before any file is fetched or read.
    if (post.media.length > IMPORT_LIMITS.postMedia)
      throw new Error(`${post.media.length} media: a post holds at most ${IMPORT_LIMITS.postMedia}`);
    // A post found under a former identity (an earlier importer's) is this one: it is updated
    // and takes the new identity, so posts imported before the change are not doubled; rows
    // cannot be renamed by a migration, which would need the export's site and post ids.
    const existing = await this.stored.findImported(post.sourceId, post.formerSourceIds);
    const items = existing?.media ?? [];
    let content = post.content;
    // Together (the fetcher allows 4 downloads at once over the import).
    const outcomes = await Promise.allSettled(
      post.media.map(async (media) => {
        if (!media.fetch) return {};
        const keyOf = (sourceId: string) =>
          `${ORIGINALS_PREFIX}/import/${createHash('sha256').update(`${sourceId}\n${media.identity}`).digest('hex').slice(0, 32)}`;
        const keyBase = keyOf(post.sourceId);
        // Files stored under the identity the post had until now are its files too.
        const bases = [keyBase, ...(existing ? [keyOf(existing.sourceId)] : [])];
        const known = items.find((item) => bases.some((base) => item.originalKey?.startsWith(`${base}.`)));
        if (known) return { known };
        return { file: await media.fetch((ext) => `${keyBase}.${importId}.${ext}`) };
      }),
    );
    // The archive's budget is the file's: the import stops (its stored files go with it).
    const overBudget = outcomes.find((o) => o.status === 'rejected' && o.reason instanceof ImportLimitError);
    if (overBudget) throw (overBudget as PromiseRejectedResult).reason;
    const files: UploadedFile[] = [];
    const unified: UnifiedMediaInput[] = [];
    outcomes.forEach((outcome, i) => {
      const media = post.media[i]!;
      if (outcome.status === 'rejected') {
        report.media.failed++;
        reportError(report, post.title, `${media.identity}: ${errorMessage(outcome.reason)}`);
        content = content.replace(
          new RegExp(`!\\[[^\\]]*\\]\\(media:${escapeRegExp(media.ref)}\\)`, 'g'),
          '',
        );
        return;
      }
      const { known, file } = outcome.value as { known?: MediaItem; file?: UploadedFile };
      const details = {
        ref: media.ref,
        alt: media.alt?.slice(0, 300),
        caption: media.caption?.slice(0, 500),
        ...(media.title ? { title: media.title } : {}),
        order: unified.length,
      };
      if (media.kind === 'youtube') unified.push({ type: 'youtube', url: media.url, ...details });
      else if (known)
        unified.push({ type: known.type, path: `${UPLOADS_PREFIX}${known.originalKey}`, ...details });
      else {
        unified.push({ type: file!.type, fileIndex: files.length, isNew: true, ...details });
        files.push(file!);
        report.media.downloaded++;
      }
    });
    const typed = {
      title: post.title,
      content,
      category: post.leaf.labels[0]!,
      submenu1: post.leaf.labels[1]!,
      submenu2: post.leaf.labels[2],
      tags: post.tags,
      status: post.status,
      date: post.date ?? undefined,
      crop: post.crop,
      media: unified,
    };
    const origin = { sourceId: post.sourceId, oldPaths: post.oldPaths, slug: post.slug };
    let postId: number;
    try {
      const { answer } = await this.posts.saveImported(typed, files, origin, existing?.id);
      report.redirects += post.oldPaths.length;
      const ids = answer.media.filter((m) => m.type !== 'youtube' && m.status === 'pending').map((m) => m.id);
      if (ids.length) this.media.enqueue(ids);
      postId = answer.id;
    } catch (error) {
      await this.storage.deleteMany(files.map((f) => f.key)).catch(() => undefined);
      throw error;
    }
    // After the post: a comment already brought by an earlier run is not added again.
    if (post.comments?.length) {
      if (post.comments.length > IMPORTED_COMMENTS_MAX)
        reportError(
          report,
          post.title,
          `${post.comments.length - IMPORTED_COMMENTS_MAX} comment(s) over ${IMPORTED_COMMENTS_MAX} left out`,
        );
      try {
        report.comments = (report.comments ?? 0) + (await this.comments.importFor(postId, post.comments));
      } catch (error) {
        reportError(report, post.title, `comments not imported: ${errorMessage(error)}`);
      }
    }
    return Boolean(existing);
  }
}
