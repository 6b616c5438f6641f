import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { CommentStatus } from '@blog/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { VISIBILITY_SQL } from '../posts/visibility.js';

/** A row of posts.comments, as the service works with it. */
export interface CommentRow {
  id: number;
  postId: number;
  parentId: number | null;
  status: CommentStatus;
  contentHtml: string;
  /**
   * The author's change to an approved comment, waiting for the owner (status pending);
   * readers keep seeing `contentHtml`, the approved text, until it is approved. Else null.
   */
  pendingHtml: string | null;
  authorName: string;
  authorHandle: string | null;
  authorUrl: string | null;
  authorAvatarKey: string | null;
  local: boolean;
  userId: string | null;
  remoteObjectId: string | null;
  remoteActorUri: string | null;
  via: string | null;
  /** An imported comment's identity in its source, else null. */
  sourceId: string | null;
  /** The blog owner's reply from the dashboard (shown as the author's). */
  byOwner: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type NewComment = Omit<
  CommentRow,
  'id' | 'createdAt' | 'updatedAt' | 'sourceId' | 'pendingHtml' | 'byOwner'
> & {
  sourceId?: string | null;
  createdAt?: Date;
  updatedAt?: Date;
};

/** What the comment rules need of a post: where it is, and whether visitors see it. */
export interface CommentPost {
  id: number;
  title: string;
  slug: string;
  category: string;
  submenu1: string;
  submenu2: string | null;
  visible: boolean;
}

export type CommentWithPost = CommentRow & { post: Omit<CommentPost, 'visible'> };

/** A comment's author: a site account, or a fediverse actor. */
export type CommentAuthorKey = { userId: string } | { actorUri: string };

/** What moderation and an author's edits change of a comment. */
export type CommentText = Pick<CommentRow, 'status' | 'contentHtml' | 'pendingHtml'>;

/**
 * Readers see an approved comment, and one whose approved text stays while its change waits
 * (`alias`: the table's alias in the caller's SQL, with its dot).
 */
export const publicCommentSql = (alias = '') =>
  `(${alias}status = 'approved' OR ${alias}pending_html IS NOT NULL)`;
const PUBLIC = publicCommentSql();

/** posts.comments, posts.comment_settings and posts.comment_post_settings: all of the comments' SQL. */
@Injectable()
export class CommentsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async post(id: number): Promise<CommentPost | null> {
    const [row] = (await this.db.query(`${POST_SELECT} WHERE p.id = $1`, [id])) as CommentPost[];
    return row ?? null;
  }

  async postBySlug(slug: string): Promise<CommentPost | null> {
    const [row] = (await this.db.query(`${POST_SELECT} WHERE p.slug = $1`, [slug])) as CommentPost[];
    return row ?? null;
  }

  async find(id: number): Promise<CommentRow | null> {
    const [row] = (await this.db.query(`${SELECT} WHERE id = $1`, [id])) as CommentRow[];
    return row ?? null;
  }

  async findRemote(remoteObjectId: string): Promise<CommentRow | null> {
    const [row] = (await this.db.query(`${SELECT} WHERE remote_object_id = $1`, [
      remoteObjectId,
    ])) as CommentRow[];
    return row ?? null;
  }

  /** Inserts on `manager` when given (a keyed write's transaction). */
  async insert(comment: NewComment, manager?: EntityManager): Promise<CommentRow> {
    const [row] = (await (manager ?? this.db.manager).query(
      `${INSERT} RETURNING ${COLUMNS}`,
      values(comment),
    )) as CommentRow[];
    return row!;
  }

  /**
   * An imported post's comments, in one transaction, parents before their replies: one whose
   * source id (or Note id) is here already is left as it is, so an import run again adds
   * nothing. Answers how many were added.
   */
  async insertImported(
    comments: (NewComment & { sourceId: string; parentSourceId: string | null })[],
  ): Promise<number> {
    if (comments.length === 0) return 0;
    return this.db.transaction(async (manager) => {
      const ids = new Map<string, number>();
      let added = 0;
      for (const comment of comments) {
        const parentId = comment.parentSourceId ? (ids.get(comment.parentSourceId) ?? null) : null;
        const { parentSourceId: _parent, ...row } = comment;
        const inserted = (await manager.query(
          `${INSERT} ON CONFLICT DO NOTHING RETURNING id`,
          values({ ...row, parentId }),
        )) as { id: number }[];
        if (inserted[0]) {
          added++;
          ids.set(comment.sourceId, inserted[0].id);
          continue;
        }
        const [known] = (await manager.query(
          `SELECT id FROM posts.comments WHERE source_id = $1 OR (remote_object_id IS NOT NULL AND remote_object_id = $2)`,
          [comment.sourceId, comment.remoteObjectId],
        )) as { id: number }[];
        if (known) ids.set(comment.sourceId, known.id);
      }
      return added;
    });
  }

  /** The comments of these posts, every status, oldest first (the archive). */
  forPosts(postIds: number[]): Promise<CommentRow[]> {
    return this.db.query(`${SELECT} WHERE post_id = ANY($1) ORDER BY created_at, id`, [postIds]) as Promise<
      CommentRow[]
    >;
  }

  /** A post's comments readers see (approved, or approved before a change that waits), oldest first. */
  approved(postId: number): Promise<CommentRow[]> {
    return this.db.query(`${SELECT} WHERE post_id = $1 AND ${PUBLIC} ORDER BY created_at, id`, [
      postId,
    ]) as Promise<CommentRow[]>;
  }

  /** One page of a status, newest first, with each comment's post. */
  async page(status: CommentStatus, offset: number, limit: number): Promise<CommentWithPost[]> {
    const rows = (await this.db.query(
      `SELECT ${prefixed('c')}, p.title AS "postTitle", p.slug AS "postSlug", p.category AS "postCategory",
              p.submenu1 AS "postSubmenu1", p.submenu2 AS "postSubmenu2"
       FROM posts.comments c JOIN posts.posts p ON p.id = c.post_id
       WHERE c.status = $1 ORDER BY c.created_at DESC, c.id DESC OFFSET $2 LIMIT $3`,
      [status, offset, limit],
    )) as (CommentRow & Record<`post${string}`, string>)[];
    return rows.map(({ postTitle, postSlug, postCategory, postSubmenu1, postSubmenu2, ...row }) => ({
      ...(row as CommentRow),
      post: {
        id: row.postId,
        title: postTitle!,
        slug: postSlug!,
        category: postCategory!,
        submenu1: postSubmenu1!,
        submenu2: postSubmenu2 ?? null,
      },
    }));
  }

  async counts(): Promise<Record<CommentStatus, number>> {
    const rows = (await this.db.query(
      `SELECT status, count(*)::int AS n FROM posts.comments GROUP BY status`,
    )) as { status: CommentStatus; n: number }[];
    const counts: Record<CommentStatus, number> = { pending: 0, approved: 0, spam: 0 };
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  /** Approving applies a change that waits; marking as spam drops it (the approved text stays). */
  async setStatus(id: number, status: CommentStatus): Promise<CommentRow | null> {
    const [rows] = (await this.db.query(
      `UPDATE posts.comments
       SET status = $2, updated_at = now(), pending_html = NULL,
           content_html = CASE WHEN $2 = 'approved' THEN coalesce(pending_html, content_html) ELSE content_html END
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status],
    )) as [CommentRow[], number];
    return rows[0] ?? null;
  }

  /** Drops the change that waits on an approved comment: its approved text shows again. */
  async refuseChange(id: number): Promise<CommentRow | null> {
    const [rows] = (await this.db.query(
      `UPDATE posts.comments SET status = 'approved', pending_html = NULL
       WHERE id = $1 AND pending_html IS NOT NULL RETURNING ${COLUMNS}`,
      [id],
    )) as [CommentRow[], number];
    return rows[0] ?? null;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Deletes the comment (its replies go with it), on `manager` when given; false when there was none. */
  async delete(id: number, manager?: EntityManager): Promise<boolean> {
    const [, affected] = (await (manager ?? this.db.manager).query(
      `DELETE FROM posts.comments WHERE id = $1`,
      [id],
    )) as [unknown, number];
    return affected > 0;
  }

  /** The remote comment with this Note id, only when `actorUri` wrote it. */
  async findRemoteBy(remoteObjectId: string, actorUri: string): Promise<CommentRow | null> {
    const [row] = (await this.db.query(`${SELECT} WHERE remote_object_id = $1 AND remote_actor_uri = $2`, [
      remoteObjectId,
      actorUri,
    ])) as CommentRow[];
    return row ?? null;
  }

  /**
   * Sets a comment's text and status when they are still `before` (null when they changed
   * meanwhile, so a decision is never made on what another write replaced). The time changes
   * only with the text readers see.
   */
  async changeText(id: number, before: CommentText, after: CommentText): Promise<CommentRow | null> {
    const [rows] = (await this.db.query(
      `UPDATE posts.comments
       SET status = $5, content_html = $6, pending_html = $7,
           updated_at = CASE WHEN content_html = $6 THEN updated_at ELSE now() END
       WHERE id = $1 AND status = $2 AND content_html = $3 AND pending_html IS NOT DISTINCT FROM $4
       RETURNING ${COLUMNS}`,
      [
        id,
        before.status,
        before.contentHtml,
        before.pendingHtml,
        after.status,
        after.contentHtml,
        after.pendingHtml,
      ],
    )) as [CommentRow[], number];
    return rows[0] ?? null;
  }

  /**
   * The ids of fediverse comments, locked till `manager`'s transaction ends: a Note by its author
   * only, every comment of one actor, or of every actor whose URI is on `domain` (a block).
   */
  async remoteIds(
    by: { objectUri: string; actorUri: string } | { actorUri: string } | { domain: string },
    manager: EntityManager,
  ): Promise<number[]> {
    const [where, params] =
      'domain' in by
        ? [
            // The server and its sub-domains, as a block of the domain covers them (hostInDomain).
            `remote_actor_uri IS NOT NULL
             AND (SELECT h = $1 OR right(h, length($1) + 1) = '.' || $1
                  FROM lower(substring(remote_actor_uri from '^[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^/@]*@)?([^/?#:]+)')) AS h)`,
            [by.domain],
          ]
        : 'objectUri' in by
          ? ['remote_object_id = $1 AND remote_actor_uri = $2', [by.objectUri, by.actorUri]]
          : ['remote_actor_uri = $1', [by.actorUri]];
    const rows = (await manager.query(`SELECT id FROM posts.comments WHERE ${where} FOR UPDATE`, params)) as {
      id: number;
    }[];
    return rows.map((row) => row.id);
  }

  /** Deletes these comments (their replies go with them); how many were. */
  async deleteIds(ids: number[], manager: EntityManager): Promise<number> {
    const [, affected] = (await manager.query(`DELETE FROM posts.comments WHERE id = ANY($1::int[])`, [
      ids,
    ])) as [unknown, number];
    return affected;
  }

  /** Whether the author already has an approved comment anywhere on the blog. */
  async hasApproved(author: CommentAuthorKey): Promise<boolean> {
    const [column, value] =
      'userId' in author ? ['user_id', author.userId] : ['remote_actor_uri', author.actorUri];
    const rows = (await this.db.query(
      `SELECT 1 FROM posts.comments WHERE ${column} = $1 AND ${PUBLIC} LIMIT 1`,
      [value],
    )) as unknown[];
    return rows.length > 0;
  }

  async settings(): Promise<{ autoApproveKnown: boolean }> {
    const [row] = (await this.db.query(
      `SELECT auto_approve_known AS "autoApproveKnown" FROM posts.comment_settings WHERE id = 1`,
    )) as { autoApproveKnown: boolean }[];
    return { autoApproveKnown: row?.autoApproveKnown ?? false };
  }

  async setSettings(settings: { autoApproveKnown: boolean }): Promise<void> {
    await this.db.query(
      `INSERT INTO posts.comment_settings (id, auto_approve_known) VALUES (1, $1)
       ON CONFLICT (id) DO UPDATE SET auto_approve_known = EXCLUDED.auto_approve_known`,
      [settings.autoApproveKnown],
    );
  }

  /** The post's own switch (false when never set). */
  async postAutoApprove(postId: number): Promise<boolean> {
    const [row] = (await this.db.query(
      `SELECT auto_approve_known AS on FROM posts.comment_post_settings WHERE post_id = $1`,
      [postId],
    )) as { on: boolean }[];
    return row?.on ?? false;
  }

  async setPostAutoApprove(postId: number, on: boolean): Promise<void> {
    await this.db.query(
      `INSERT INTO posts.comment_post_settings (post_id, auto_approve_known) VALUES ($1, $2)
       ON CONFLICT (post_id) DO UPDATE SET auto_approve_known = EXCLUDED.auto_approve_known`,
      [postId, on],
    );
  }

  /**
   * Takes the owner-mail slot when the last mail is at least `everyMinutes` old: one atomic
   * UPDATE, so two replicas never both mail.
   */
  async claimOwnerMail(now: Date, everyMinutes: number): Promise<boolean> {
    const [rows] = (await this.db.query(
      `UPDATE posts.comment_settings SET last_owner_mail_at = $1
       WHERE id = 1 AND (last_owner_mail_at IS NULL OR last_owner_mail_at <= $1::timestamptz - make_interval(mins => $2))
       RETURNING id`,
      [now, everyMinutes],
    )) as [unknown[], number];
    return rows.length > 0;
  }
}

const COLUMNS = `id, post_id AS "postId", parent_id AS "parentId", status, content_html AS "contentHtml",
  pending_html AS "pendingHtml", author_name AS "authorName", author_handle AS "authorHandle", author_url AS "authorUrl",
  author_avatar_key AS "authorAvatarKey", local, user_id AS "userId", remote_object_id AS "remoteObjectId",
  remote_actor_uri AS "remoteActorUri", via, source_id AS "sourceId", by_owner AS "byOwner", created_at AS "createdAt",
  updated_at AS "updatedAt"`;
const INSERT = `INSERT INTO posts.comments (post_id, parent_id, status, content_html, author_name, author_handle,
  author_url, author_avatar_key, local, user_id, remote_object_id, remote_actor_uri, via, source_id, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, coalesce($15, now()), coalesce($16, $15, now()))`;

function values(comment: NewComment): unknown[] {
  return [
    comment.postId,
    comment.parentId,
    comment.status,
    comment.contentHtml,
    comment.authorName,
    comment.authorHandle,
    comment.authorUrl,
    comment.authorAvatarKey,
    comment.local,
    comment.userId,
    comment.remoteObjectId,
    comment.remoteActorUri,
    comment.via,
    comment.sourceId ?? null,
    comment.createdAt ?? null,
    comment.updatedAt ?? null,
  ];
}
const SELECT = `SELECT ${COLUMNS} FROM posts.comments`;
const prefixed = (alias: string) => COLUMNS.replace(/(^|,\s*)(\w+)/g, `$1${alias}.$2`);
const POST_SELECT = `SELECT p.id, p.title, p.slug, p.category, p.submenu1, p.submenu2,
  (${VISIBILITY_SQL.visible}) AS visible FROM posts.posts p`;
