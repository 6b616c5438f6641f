import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  OwnerFediverseErrors,
  READER_PAGE,
  type OwnReactionKind,
  type OwnReactionResult,
  type ReaderItem,
  type ReaderPage,
  type ReaderQuery,
} from '@blog/contracts';
import { AccountLookupError, type ReaderEntry } from '@blog/federation';
import { RpcError } from '@blog/server-kit';
import { remoteHtmlText, sanitiseRemoteHtml } from '@blog/server-kit/remote-html';
import { SOCIAL_CONFIG, type SocialConfig } from '../config.js';
import { FederationRef } from '../federation/federation-ref.js';
import { MediaClient } from '../federation/media-client.js';
import { FollowersRepository } from '../followers/followers.repository.js';
import { accountView, RemoteActorsService } from '../followers/remote-actors.service.js';
import { ReaderRepository, type ReaderRow, type StoredAttachment } from './reader.repository.js';

/** How many old entries go per statement. */
const PURGE_BATCH = 500;
/** A title or content warning longer than this is cut (Mastodon allows 500 characters). */
const SHORT_TEXT_MAX = 1000;

const itemOf = (row: ReaderRow): ReaderItem => ({
  id: row.id,
  object: row.object_uri,
  url: row.url,
  type: row.type,
  name: row.name,
  content: row.content_html,
  summary: row.summary,
  sensitive: row.sensitive,
  attachments: row.attachments.map((a) => ({ url: `/uploads/${a.key}`, mediaType: a.mediaType, alt: a.alt })),
  published: new Date(row.published).toISOString(),
  inReplyTo: row.in_reply_to,
  author: accountView(row.author),
  boostedBy: row.booster ? accountView(row.booster) : null,
  liked: row.liked,
  boosted: row.boosted,
});

/**
 * The Reader: what the accounts the blog follows post and boost, kept READER_RETENTION_DAYS.
 * Text is sanitised before it is stored; pictures and avatars are the media service's copies.
 */
@Injectable()
export class ReaderService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReaderService.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(SOCIAL_CONFIG) private readonly config: SocialConfig,
    private readonly reader: ReaderRepository,
    private readonly followers: FollowersRepository,
    private readonly actors: RemoteActorsService,
    private readonly media: MediaClient,
    private readonly runtime: FederationRef,
  ) {}

  follows(actorUri: string): Promise<boolean> {
    return this.followers.isFollowing(actorUri);
  }

  async add(entry: ReaderEntry): Promise<void> {
    const authorId = await this.actors.remember(entry.author);
    const boosterId = entry.boostedBy ? await this.actors.remember(entry.boostedBy) : null;
    await this.reader.add({
      ...this.textOf(entry),
      activityId: entry.activityId,
      objectUri: entry.objectUri,
      authorId,
      boosterId,
      type: entry.type,
      url: entry.url,
      attachments: await this.pictures(entry.attachments),
      published: entry.published,
      inReplyTo: entry.inReplyTo,
    });
  }

  async update(entry: ReaderEntry): Promise<void> {
    const attachments = await this.pictures(entry.attachments);
    const replaced = await this.reader.update(entry.objectUri, entry.author.actorUri, {
      ...this.textOf(entry),
      attachments,
    });
    await this.drop(replaced);
  }

  async remove(objectUri: string, actorUri: string): Promise<void> {
    await this.drop(await this.reader.removeObject(objectUri, actorUri));
  }

  async removeBoost(activityId: string, actorUri: string): Promise<void> {
    await this.drop(await this.reader.removeBoost(activityId, actorUri));
  }

  async page(query: ReaderQuery): Promise<ReaderPage> {
    const rows = await this.reader.page(query.cursor ?? null, READER_PAGE + 1);
    const items = rows.slice(0, READER_PAGE).map(itemOf);
    return { items, next: rows.length > READER_PAGE ? items.at(-1)!.id : null };
  }

  /** The owner's like or boost of an object (or its Undo); a repeat changes nothing. */
  async react(object: string, kind: OwnReactionKind, active: boolean): Promise<OwnReactionResult> {
    const standing = await this.reader.ownReaction(object, kind);
    if (active === (standing !== null)) return { object, kind, active };
    let activityId: string;
    try {
      activityId = await this.runtime.blog.owner.react(kind, object, standing ?? undefined);
    } catch (error) {
      if (error instanceof AccountLookupError)
        throw RpcError.unprocessable(OwnerFediverseErrors.objectNotFound);
      throw error;
    }
    await this.reader.setOwnReaction(object, kind, active ? activityId : null);
    return { object, kind, active };
  }

  /** Entries past the retention, and the pictures no other entry shows. */
  async purge(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.READER_RETENTION_DAYS * 24 * 3600 * 1000);
    let total = 0;
    for (;;) {
      const { removed, attachments } = await this.reader.purgeBefore(cutoff, PURGE_BATCH);
      total += removed;
      await this.drop(attachments);
      if (removed < PURGE_BATCH) return total;
    }
  }

  onApplicationBootstrap(): void {
    const run = () =>
      this.purge().catch((error: unknown) =>
        this.logger.warn(`Reader purge failed: ${(error as Error).message}`),
      );
    this.timer = setInterval(run, this.config.READER_PURGE_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private textOf(entry: ReaderEntry) {
    const short = (text: string | null) => (text ? remoteHtmlText(text, SHORT_TEXT_MAX) || null : null);
    return {
      name: short(entry.name),
      html: sanitiseRemoteHtml(entry.html),
      summary: short(entry.summary),
      sensitive: entry.sensitive || entry.summary !== null,
    };
  }

  /** The blog's copies of an entry's pictures; one that cannot be had is left out (never hot-linked). */
  private async pictures(attachments: ReaderEntry['attachments']): Promise<StoredAttachment[]> {
    const copies = await Promise.all(
      attachments.map(async (a) => {
        const key = await this.media.cachePicture(a.url);
        return key ? { key, mediaType: 'image/webp', alt: a.alt.slice(0, SHORT_TEXT_MAX) } : null;
      }),
    );
    return copies.filter((c): c is StoredAttachment => c !== null);
  }

  private async drop(attachments: StoredAttachment[]): Promise<void> {
    const keys = [...new Set(attachments.map((a) => a.key))];
    if (keys.length === 0) return;
    const inUse = await this.reader.keysInUse(keys);
    const unused = keys.filter((key) => !inUse.has(key));
    if (unused.length > 0) await this.media.dropPictures(unused);
  }
}
