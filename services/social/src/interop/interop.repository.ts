import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { QuoteStamp } from '@blog/federation';
import type { ReactionSubject } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';

interface StampRow {
  id: string;
  activity_id: string;
  remote_actor_uri: string;
  object_uri: string;
  quote_uri: string;
}

/** Quote stamps (quote_stamps, with a 'quote' reaction for a post), and followers checked and moved. */
export abstract class InteropRepository {
  /** Stores the stamp (and, for a post, its 'quote' reaction); a repeated request changes nothing. */
  abstract addQuote(stamp: QuoteStamp, subject: ReactionSubject | null): Promise<void>;
  abstract stamp(id: string): Promise<QuoteStamp | null>;
  abstract isFollower(actorUri: string): Promise<boolean>;
  /**
   * The follower row of `oldActorUri` names `newActorId` (a remote_actors row) instead, keeping
   * its status; when the new account follows already, the old row just goes. False: no such follower.
   */
  abstract moveFollower(oldActorUri: string, newActorId: number): Promise<boolean>;
}

@Injectable()
export class PostgresInteropRepository extends InteropRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  addQuote(stamp: QuoteStamp, subject: ReactionSubject | null) {
    return this.db.transaction(async (manager) => {
      await queryRows(
        manager,
        `INSERT INTO quote_stamps (id, activity_id, remote_actor_uri, object_uri, quote_uri)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        [stamp.id, stamp.activityId, stamp.actorUri, stamp.objectUri, stamp.quoteUri],
      );
      if (subject !== null)
        await queryRows(
          manager,
          `INSERT INTO reactions (activity_id, post_id, note_id, remote_actor_uri, kind) VALUES ($1, $2, $3, $4, 'quote')
           ON CONFLICT (activity_id) DO NOTHING`,
          [
            stamp.activityId,
            'postId' in subject ? subject.postId : null,
            'noteId' in subject ? subject.noteId : null,
            stamp.actorUri,
          ],
        );
    });
  }

  async stamp(id: string): Promise<QuoteStamp | null> {
    const [row] = await queryRows<StampRow>(
      this.db,
      `SELECT id, activity_id, remote_actor_uri, object_uri, quote_uri FROM quote_stamps WHERE id = $1`,
      [id],
    );
    return row
      ? {
          id: row.id,
          activityId: row.activity_id,
          actorUri: row.remote_actor_uri,
          objectUri: row.object_uri,
          quoteUri: row.quote_uri,
        }
      : null;
  }

  async isFollower(actorUri: string): Promise<boolean> {
    const [row] = await queryRows<{ follows: boolean }>(
      this.db,
      `SELECT EXISTS (SELECT 1 FROM followers f JOIN remote_actors a ON a.id = f.remote_actor_id
         WHERE a.uri = $1 AND f.status = 'accepted') AS follows`,
      [actorUri],
    );
    return row!.follows;
  }

  moveFollower(oldActorUri: string, newActorId: number) {
    return this.db.transaction(async (manager) => {
      const [old] = await queryRows<{ id: number }>(
        manager,
        `SELECT f.id FROM followers f JOIN remote_actors a ON a.id = f.remote_actor_id WHERE a.uri = $1 FOR UPDATE`,
        [oldActorUri],
      );
      if (!old) return false;
      const [already] = await queryRows<{ id: number }>(
        manager,
        `SELECT id FROM followers WHERE remote_actor_id = $1`,
        [newActorId],
      );
      if (already) await queryRows(manager, `DELETE FROM followers WHERE id = $1`, [old.id]);
      else
        await queryRows(manager, `UPDATE followers SET remote_actor_id = $1 WHERE id = $2`, [
          newActorId,
          old.id,
        ]);
      return true;
    });
  }
}
