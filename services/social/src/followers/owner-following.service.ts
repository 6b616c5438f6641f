import { Injectable } from '@nestjs/common';
import {
  OwnerFediverseErrors,
  type FollowAccountInput,
  type FollowingListResult,
  type FollowingView,
} from '@blog/contracts';
import { AccountLookupError, type RemoteFollower } from '@blog/federation';
import { RpcError } from '@blog/server-kit';
import { BlocksService } from '../blocks/blocks.service.js';
import { FederationRef } from '../federation/federation-ref.js';
import { FollowersRepository, type FollowingRow } from './followers.repository.js';
import { accountView, RemoteActorsService } from './remote-actors.service.js';

const followingView = (row: FollowingRow): FollowingView => ({
  ...accountView({ ...row, uri: row.target_uri }),
  id: row.id,
  status: row.status,
  since: new Date(row.created_at).toISOString(),
});

/**
 * The accounts the owner follows: looked up by handle or URL (through the outbound fetcher),
 * sent a signed Follow, pending until their Accept (or rejected), and Undo on unfollow.
 */
@Injectable()
export class OwnerFollowingService {
  constructor(
    private readonly followers: FollowersRepository,
    private readonly actors: RemoteActorsService,
    private readonly blocks: BlocksService,
    private readonly runtime: FederationRef,
  ) {}

  async follow(input: FollowAccountInput): Promise<FollowingView> {
    const blog = this.runtime.blog;
    let actor: RemoteFollower;
    try {
      actor = await blog.owner.lookup(input.account);
    } catch (error) {
      if (!(error instanceof AccountLookupError)) throw error;
      throw RpcError.unprocessable(
        error.kind === 'not-found' ? OwnerFediverseErrors.notFound : OwnerFediverseErrors.notAnActor,
      );
    }
    if (actor.actorUri === blog.actorUri.href) throw RpcError.unprocessable(OwnerFediverseErrors.self);
    await this.blocks.assertNotBlocked(actor.actorUri);
    const actorId = await this.actors.remember(actor);
    // Queued and signed by the federation; its id is the same for a repeat, so a late Accept still matches.
    const followActivityId = await blog.follow(actor.actorUri);
    return followingView(await this.followers.saveFollowing(actorId, actor.actorUri, followActivityId));
  }

  async list(): Promise<FollowingListResult> {
    const rows = await this.followers.followingList();
    return { items: rows.map(followingView), total: rows.length };
  }

  async unfollow(id: number): Promise<{ removed: true }> {
    const row = await this.followers.findFollowing(id);
    if (!row) throw RpcError.notFound(OwnerFediverseErrors.followingNotFound);
    if (row.inbox)
      await this.runtime.blog.owner.unfollow(
        { actorUri: row.target_uri, inbox: row.inbox, sharedInbox: row.shared_inbox },
        row.follow_activity_id,
      );
    await this.followers.removeFollowingById(id);
    return { removed: true };
  }

  /** The account's Accept or Reject of the blog's Follow (matched by the Follow's id and its target). */
  async answered(followActivityId: string, actorUri: string, accepted: boolean): Promise<void> {
    if (accepted) await this.followers.acceptFollowing(followActivityId);
    else await this.followers.rejectFollowing(followActivityId, actorUri);
  }
}
