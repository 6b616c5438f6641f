import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  FollowerListQuery,
  FollowersPage,
  FollowerStatus,
  FollowingPage,
  FollowingStatus,
  RemoteActor,
} from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';

/** A follower with its remote actor, as the admin's list and the approve answer need it. */
export interface FollowerRow {
  id: number;
  status: FollowerStatus;
  created_at: Date;
  follow_activity_id: string;
  uri: string;
  host: string;
  handle: string | null;
  name: string | null;
  url: string | null;
  inbox: string;
  shared_inbox: string | null;
}

/** `@user@host`, or the actor's URI when its document named no handle. */
export function handleOf(row: { handle: string | null; uri: string }): string {
  return row.handle ? `@${row.handle}` : row.uri;
}

const FOLLOWER_COLUMNS = `f.id, f.status, f.created_at, f.follow_activity_id, a.uri, a.host, a.handle, a.name, a.url, a.inbox, a.shared_inbox`;

/** Remote actors, the blog's followers and the accounts it follows (remote_actors, followers, following). */
export abstract class FollowersRepository {
  /** Stores the actor as seen now (a known one is updated); answers its id. */
  abstract saveActor(actor: RemoteActor, host: string): Promise<number>;
  /** Adds the follower, or for one already there only records the new Follow's id. */
  abstract follow(
    actorId: number,
    followActivityId: string,
    status: FollowerStatus,
  ): Promise<{ id: number; status: FollowerStatus; created: boolean }>;
  abstract unfollow(actorUri: string, followActivityId?: string): Promise<number>;
  /** Accepted followers after the follower `afterId`, by id: the followers collection's pages. */
  abstract recipients(afterId: number, limit: number): Promise<FollowersPage>;
  abstract page(query: FollowerListQuery): Promise<{ rows: FollowerRow[]; total: number }>;
  abstract counts(): Promise<{ accepted: number; pending: number }>;
  abstract find(id: number): Promise<FollowerRow | undefined>;
  /** pending → accepted; undefined when it was not pending (or is not there). */
  abstract approve(id: number): Promise<FollowerRow | undefined>;
  abstract remove(id: number): Promise<boolean>;
  abstract addFollowing(targetUri: string, followActivityId: string): Promise<boolean>;
  abstract acceptFollowing(followActivityId: string): Promise<boolean>;
  abstract removeFollowing(targetUri: string): Promise<boolean>;
  abstract following(offset: number, limit: number): Promise<FollowingPage>;
  /** The icon an actor names now, and the one its cached avatar was made from. */
  abstract avatarState(
    actorId: number,
  ): Promise<{ iconUrl: string | null; avatarSource: string | null; avatarKey: string | null }>;
  abstract setAvatar(actorId: number, key: string | null, source: string | null): Promise<void>;
  /** The owner's Follow of an account: pending until its Accept (a repeat sends a new Follow). */
  abstract saveFollowing(actorId: number, targetUri: string, followActivityId: string): Promise<FollowingRow>;
  /** Every account the blog follows or asked to follow, newest first. */
  abstract followingList(): Promise<FollowingRow[]>;
  abstract findFollowing(id: number): Promise<FollowingRow | undefined>;
  abstract removeFollowingById(id: number): Promise<boolean>;
  /** The account refused the Follow with this id. */
  abstract rejectFollowing(followActivityId: string, actorUri: string): Promise<boolean>;
  /** Whether the blog follows this account and it accepted. */
  abstract isFollowing(actorUri: string): Promise<boolean>;
}

/** An account the blog follows, with its actor as last seen. */
export interface FollowingRow {
  id: number;
  target_uri: string;
  follow_activity_id: string;
  status: FollowingStatus;
  created_at: Date;
  handle: string | null;
  name: string | null;
  url: string | null;
  inbox: string | null;
  shared_inbox: string | null;
  avatar_key: string | null;
}

/** How long isFollowing's answer is taken as true (at most this long behind another replica's change). */
const FOLLOWING_ANSWER_MS = 10_000;
const FOLLOWING_ANSWERS_MAX = 10_000;

const FOLLOWING_COLUMNS = `g.id, g.target_uri, g.follow_activity_id, g.status, g.created_at, a.handle, a.name, a.url,
  a.inbox, a.shared_inbox, a.avatar_key`;

@Injectable()
export class PostgresFollowersRepository extends FollowersRepository {
  /**
   * isFollowing's recent answers: each post a followed account sends asks it. Any change to the
   * accounts followed clears them here; another replica's change shows within the answers' time.
   */
  private readonly followingAnswers = new Map<string, { following: boolean; until: number }>();
  /** Counts the changes: an answer read while one was being written is not kept. */
  private followingChanges = 0;

  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async saveActor(actor: RemoteActor, host: string): Promise<number> {
    const [row] = await queryRows<{ id: number }>(
      this.db,
      `INSERT INTO remote_actors (uri, host, handle, name, url, inbox, shared_inbox, icon_url, fetched_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
       ON CONFLICT (uri) DO UPDATE SET host = excluded.host, handle = excluded.handle, name = excluded.name,
         url = excluded.url, inbox = excluded.inbox, shared_inbox = excluded.shared_inbox,
         icon_url = excluded.icon_url, fetched_at = now()
       RETURNING id`,
      [
        actor.actorUri,
        host,
        actor.handle,
        actor.name,
        actor.url,
        actor.inbox,
        actor.sharedInbox,
        actor.iconUrl,
      ],
    );
    return row!.id;
  }

  async follow(actorId: number, followActivityId: string, status: FollowerStatus) {
    // xmax = 0 only on a freshly inserted row: tells a new follower from a repeated Follow.
    const [row] = await queryRows<{ id: number; status: FollowerStatus; created: boolean }>(
      this.db,
      `INSERT INTO followers (remote_actor_id, follow_activity_id, status) VALUES ($1, $2, $3)
       ON CONFLICT (remote_actor_id) DO UPDATE SET follow_activity_id = excluded.follow_activity_id
       RETURNING id, status, (xmax = 0) AS created`,
      [actorId, followActivityId, status],
    );
    return row!;
  }

  async unfollow(actorUri: string, followActivityId?: string): Promise<number> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      `DELETE FROM followers f USING remote_actors a
       WHERE f.remote_actor_id = a.id AND a.uri = $1 AND ($2::text IS NULL OR f.follow_activity_id = $2)
       RETURNING f.id`,
      [actorUri, followActivityId ?? null],
    );
    return rows.length;
  }

  async recipients(afterId: number, limit: number): Promise<FollowersPage> {
    // Keyset paging on followers_status_idx (status, id): a page reads its own rows only, and a
    // follower added or removed during a walk shifts no other. One row past the page tells
    // whether another follows; the collection's total is the counter's own query (counts).
    const rows = await queryRows<{
      id: number;
      uri: string;
      handle: string | null;
      name: string | null;
      url: string | null;
      inbox: string;
      shared_inbox: string | null;
      icon_url: string | null;
    }>(
      this.db,
      `SELECT f.id, a.uri, a.handle, a.name, a.url, a.inbox, a.shared_inbox, a.icon_url
       FROM followers f JOIN remote_actors a ON a.id = f.remote_actor_id
       WHERE f.status = 'accepted' AND f.id > $1 ORDER BY f.id LIMIT $2`,
      [afterId, limit + 1],
    );
    const page = rows.slice(0, limit);
    return {
      items: page.map((row) => ({
        actorUri: row.uri,
        handle: handleOf(row),
        name: row.name,
        url: row.url,
        inbox: row.inbox,
        sharedInbox: row.shared_inbox,
        iconUrl: row.icon_url,
      })),
      nextCursor: rows.length > limit ? String(page.at(-1)!.id) : null,
    };
  }

  async page(query: FollowerListQuery): Promise<{ rows: FollowerRow[]; total: number }> {
    const status = query.status ?? null;
    const rows = await queryRows<FollowerRow>(
      this.db,
      `SELECT ${FOLLOWER_COLUMNS} FROM followers f JOIN remote_actors a ON a.id = f.remote_actor_id
       WHERE ($1::text IS NULL OR f.status = $1) ORDER BY f.created_at DESC, f.id DESC LIMIT $2 OFFSET $3`,
      [status, query.pageSize, (query.page - 1) * query.pageSize],
    );
    const [count] = await queryRows<{ n: number }>(
      this.db,
      `SELECT count(*)::int AS n FROM followers WHERE ($1::text IS NULL OR status = $1)`,
      [status],
    );
    return { rows, total: count!.n };
  }

  async counts(): Promise<{ accepted: number; pending: number }> {
    const [row] = await queryRows<{ accepted: number; pending: number }>(
      this.db,
      `SELECT count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
              count(*) FILTER (WHERE status = 'pending')::int AS pending FROM followers`,
    );
    return row!;
  }

  async find(id: number): Promise<FollowerRow | undefined> {
    const [row] = await queryRows<FollowerRow>(
      this.db,
      `SELECT ${FOLLOWER_COLUMNS} FROM followers f JOIN remote_actors a ON a.id = f.remote_actor_id WHERE f.id = $1`,
      [id],
    );
    return row;
  }

  async approve(id: number): Promise<FollowerRow | undefined> {
    const [row] = await queryRows<{ id: number }>(
      this.db,
      `UPDATE followers SET status = 'accepted' WHERE id = $1 AND status = 'pending' RETURNING id`,
      [id],
    );
    return row ? this.find(row.id) : undefined;
  }

  async remove(id: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      `DELETE FROM followers WHERE id = $1 RETURNING id`,
      [id],
    );
    return rows.length > 0;
  }

  async addFollowing(targetUri: string, followActivityId: string): Promise<boolean> {
    const [row] = await queryRows<{ created: boolean }>(
      this.db,
      `INSERT INTO following (target_uri, follow_activity_id) VALUES ($1, $2)
       ON CONFLICT (target_uri) DO UPDATE SET follow_activity_id = excluded.follow_activity_id
       RETURNING (xmax = 0) AS created`,
      [targetUri, followActivityId],
    );
    this.followingChanged();
    return row!.created;
  }

  async acceptFollowing(followActivityId: string): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      `UPDATE following SET status = 'accepted' WHERE follow_activity_id = $1 RETURNING id`,
      [followActivityId],
    );
    this.followingChanged();
    return rows.length > 0;
  }

  async removeFollowing(targetUri: string): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      `DELETE FROM following WHERE target_uri = $1 RETURNING id`,
      [targetUri],
    );
    this.followingChanged();
    return rows.length > 0;
  }

  async following(offset: number, limit: number): Promise<FollowingPage> {
    const rows = await queryRows<{ target_uri: string }>(
      this.db,
      `SELECT target_uri FROM following WHERE status = 'accepted' ORDER BY id LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
    const [count] = await queryRows<{ n: number }>(
      this.db,
      `SELECT count(*)::int AS n FROM following WHERE status = 'accepted'`,
    );
    return { items: rows.map((row) => row.target_uri), total: count!.n };
  }

  async avatarState(actorId: number) {
    const [row] = await queryRows<{
      iconUrl: string | null;
      avatarSource: string | null;
      avatarKey: string | null;
    }>(
      this.db,
      `SELECT icon_url AS "iconUrl", avatar_source AS "avatarSource", avatar_key AS "avatarKey"
       FROM remote_actors WHERE id = $1`,
      [actorId],
    );
    return row ?? { iconUrl: null, avatarSource: null, avatarKey: null };
  }

  async setAvatar(actorId: number, key: string | null, source: string | null): Promise<void> {
    await this.db.query(`UPDATE remote_actors SET avatar_key = $2, avatar_source = $3 WHERE id = $1`, [
      actorId,
      key,
      source,
    ]);
  }

  async saveFollowing(actorId: number, targetUri: string, followActivityId: string): Promise<FollowingRow> {
    const [row] = await queryRows<{ id: number }>(
      this.db,
      `INSERT INTO following (target_uri, follow_activity_id, remote_actor_id, status) VALUES ($1, $2, $3, 'pending')
       ON CONFLICT (target_uri) DO UPDATE SET follow_activity_id = excluded.follow_activity_id,
         remote_actor_id = excluded.remote_actor_id,
         status = CASE WHEN following.status = 'accepted' THEN 'accepted' ELSE 'pending' END
       RETURNING id`,
      [targetUri, followActivityId, actorId],
    );
    this.followingChanged();
    return (await this.findFollowing(row!.id))!;
  }

  followingList(): Promise<FollowingRow[]> {
    return this.followingRows('', []);
  }

  async findFollowing(id: number): Promise<FollowingRow | undefined> {
    return (await this.followingRows('WHERE g.id = $1', [id]))[0];
  }

  private followingRows(where: string, values: unknown[]): Promise<FollowingRow[]> {
    return queryRows<FollowingRow>(
      this.db,
      `SELECT ${FOLLOWING_COLUMNS} FROM following g LEFT JOIN remote_actors a ON a.id = g.remote_actor_id
       ${where} ORDER BY g.id DESC`,
      values,
    );
  }

  async removeFollowingById(id: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      `DELETE FROM following WHERE id = $1 RETURNING id`,
      [id],
    );
    this.followingChanged();
    return rows.length > 0;
  }

  async rejectFollowing(followActivityId: string, actorUri: string): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.db,
      `UPDATE following SET status = 'rejected' WHERE follow_activity_id = $1 AND target_uri = $2 RETURNING id`,
      [followActivityId, actorUri],
    );
    this.followingChanged();
    return rows.length > 0;
  }

  async isFollowing(actorUri: string): Promise<boolean> {
    const known = this.followingAnswers.get(actorUri);
    if (known && known.until > Date.now()) return known.following;
    const changes = this.followingChanges;
    const rows = await queryRows<{ id: number }>(
      this.db,
      `SELECT id FROM following WHERE target_uri = $1 AND status = 'accepted'`,
      [actorUri],
    );
    if (changes === this.followingChanges) {
      if (this.followingAnswers.size >= FOLLOWING_ANSWERS_MAX) this.followingAnswers.clear();
      this.followingAnswers.set(actorUri, {
        following: rows.length > 0,
        until: Date.now() + FOLLOWING_ANSWER_MS,
      });
    }
    return rows.length > 0;
  }

  private followingChanged(): void {
    this.followingChanges++;
    this.followingAnswers.clear();
  }
}
