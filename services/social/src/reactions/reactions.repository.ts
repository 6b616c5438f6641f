import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ReactionCounts, ReactionKind, ReactionSubject } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';

/** Likes and announces of the blog's posts and notes (reactions), one row per activity. */
export abstract class ReactionsRepository {
  /** False when this activity was recorded already. */
  abstract add(
    reaction: ReactionSubject & { activityId: string; actorUri: string; kind: ReactionKind },
  ): Promise<boolean>;
  /** Removes the activity if that actor sent it. */
  abstract remove(activityId: string, actorUri: string): Promise<boolean>;
  abstract totals(): Promise<{ likes: number; announces: number }>;
  abstract countsByPost(postIds: number[]): Promise<ReactionCounts>;
  abstract countsByNote(noteIds: number[]): Promise<ReactionCounts>;
}

@Injectable()
export class PostgresReactionsRepository extends ReactionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async add(reaction: ReactionSubject & { activityId: string; actorUri: string; kind: ReactionKind }) {
    const rows = await queryRows<{ activity_id: string }>(
      this.db,
      `INSERT INTO reactions (activity_id, post_id, note_id, remote_actor_uri, kind) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (activity_id) DO NOTHING RETURNING activity_id`,
      [
        reaction.activityId,
        'postId' in reaction ? reaction.postId : null,
        'noteId' in reaction ? reaction.noteId : null,
        reaction.actorUri,
        reaction.kind,
      ],
    );
    return rows.length > 0;
  }

  async remove(activityId: string, actorUri: string): Promise<boolean> {
    const rows = await queryRows<{ activity_id: string }>(
      this.db,
      `DELETE FROM reactions WHERE activity_id = $1 AND remote_actor_uri = $2 RETURNING activity_id`,
      [activityId, actorUri],
    );
    return rows.length > 0;
  }

  countsByPost(postIds: number[]): Promise<ReactionCounts> {
    return this.counts('post_id', postIds);
  }

  countsByNote(noteIds: number[]): Promise<ReactionCounts> {
    return this.counts('note_id', noteIds);
  }

  private async counts(column: 'post_id' | 'note_id', ids: number[]): Promise<ReactionCounts> {
    const rows = await queryRows<{ id: number; likes: number; announces: number; quotes: number }>(
      this.db,
      `SELECT ${column} AS id, count(*) FILTER (WHERE kind = 'like')::int AS likes,
              count(*) FILTER (WHERE kind = 'announce')::int AS announces,
              count(*) FILTER (WHERE kind = 'quote')::int AS quotes
       FROM reactions WHERE ${column} = ANY($1::int[]) GROUP BY ${column}`,
      [ids],
    );
    return Object.fromEntries(
      rows.map((row) => [row.id, { likes: row.likes, announces: row.announces, quotes: row.quotes }]),
    );
  }

  async totals(): Promise<{ likes: number; announces: number }> {
    const [row] = await queryRows<{ likes: number; announces: number }>(
      this.db,
      `SELECT count(*) FILTER (WHERE kind = 'like')::int AS likes,
              count(*) FILTER (WHERE kind = 'announce')::int AS announces FROM reactions`,
    );
    return row!;
  }
}
