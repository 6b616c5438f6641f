import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { VISIBILITY_SQL } from '../posts/visibility.js';

/** The comment an owner's reply answers, or the reply itself, with what its Note needs. */
export interface ReplyableComment {
  id: number;
  postId: number;
  parentId: number | null;
  /** An owner's reply: the comment it answers. */
  answersId: number | null;
  status: string;
  byOwner: boolean;
  contentHtml: string;
  remoteObjectId: string | null;
  remoteActorUri: string | null;
  authorHandle: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Whether visitors see its post. */
  postVisible: boolean;
}

const COLUMNS = `c.id, c.post_id AS "postId", c.parent_id AS "parentId", c.answers_id AS "answersId", c.status, c.by_owner AS "byOwner",
  c.content_html AS "contentHtml", c.remote_object_id AS "remoteObjectId", c.remote_actor_uri AS "remoteActorUri",
  c.author_handle AS "authorHandle", c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;

/** The owner's replies to comments (posts.comments rows with by_owner): their SQL. */
@Injectable()
export class OwnerRepliesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async find(id: number): Promise<ReplyableComment | null> {
    const [row] = (await this.db.query(
      `SELECT ${COLUMNS}, EXISTS (SELECT 1 FROM posts.posts p WHERE p.id = c.post_id AND ${VISIBILITY_SQL.visible}) AS "postVisible"
         FROM posts.comments c WHERE c.id = $1`,
      [id],
    )) as ReplyableComment[];
    return row ?? null;
  }

  /**
   * The owner's replies that a delete of comments `ids` takes with it (one of them, or a reply
   * under one) and that were sent to the fediverse (a Create handed over or waiting), locked till
   * the delete.
   */
  async federatedRepliesGoingWith(
    manager: EntityManager,
    ids: number[],
  ): Promise<
    { id: number; postId: number; answeredActorUri: string | null; answeredHandle: string | null }[]
  > {
    return (await manager.query(
      `SELECT c.id, c.post_id AS "postId", a.remote_actor_uri AS "answeredActorUri", a.author_handle AS "answeredHandle"
         FROM posts.comments c JOIN posts.comments a ON a.id = c.answers_id
        WHERE (c.id = ANY($1::int[]) OR c.parent_id = ANY($1::int[])) AND c.by_owner AND a.remote_object_id IS NOT NULL
          AND EXISTS (SELECT 1 FROM posts.federation_events e WHERE e.comment_id = c.id AND e.kind = 'create')
        FOR UPDATE OF c`,
      [ids],
    )) as { id: number; postId: number; answeredActorUri: string | null; answeredHandle: string | null }[];
  }

  /** The owner's reply, approved at once (the owner moderates the blog). */
  async insert(
    manager: EntityManager,
    reply: { postId: number; parentId: number; answersId: number; html: string; authorName: string },
  ): Promise<number> {
    const [row] = (await manager.query(
      `INSERT INTO posts.comments (post_id, parent_id, answers_id, status, content_html, author_name, local, by_owner)
       VALUES ($1, $2, $3, 'approved', $4, $5, true, true) RETURNING id`,
      [reply.postId, reply.parentId, reply.answersId, reply.html, reply.authorName],
    )) as { id: number }[];
    return row!.id;
  }
}
