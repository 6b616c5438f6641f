import { Injectable } from '@nestjs/common';
import {
  actorHost,
  SocialErrors,
  type FollowerListQuery,
  type FollowerListResult,
  type FollowerView,
  type FollowResult,
  type Patterns,
  type RpcAnswer,
  type RpcParsedRequest,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { BlocksService } from '../blocks/blocks.service.js';
import { ReactionsRepository } from '../reactions/reactions.repository.js';
import { FollowAccepts } from './follow-accepts.js';
import { FollowersRepository, handleOf, type FollowerRow } from './followers.repository.js';
import { requiredHttpUrl, storedActor } from './remote-links.js';

function followerView(row: FollowerRow): FollowerView {
  return {
    id: row.id,
    handle: handleOf(row),
    server: row.host,
    name: row.name,
    url: row.url,
    since: new Date(row.created_at).toISOString(),
    status: row.status,
  };
}

/** The blog's followers (Follow, Undo, the owner's approval and removal) and the accounts it follows. */
@Injectable()
export class FollowersService {
  constructor(
    private readonly followers: FollowersRepository,
    private readonly reactions: ReactionsRepository,
    private readonly blocks: BlocksService,
    private readonly accepts: FollowAccepts,
  ) {}

  async follow(command: RpcParsedRequest<typeof Patterns.social.follow>): Promise<FollowResult> {
    const actor = storedActor(command);
    const followActivityId = requiredHttpUrl(command.followActivityId, 'followActivityId');
    await this.blocks.assertNotBlocked(actor.actorUri);
    const actorId = await this.followers.saveActor(actor, actorHost(actor.actorUri));
    return this.followers.follow(actorId, followActivityId, command.requireApproval ? 'pending' : 'accepted');
  }

  async unfollow(command: RpcParsedRequest<typeof Patterns.social.unfollow>) {
    return { removed: (await this.followers.unfollow(command.actorUri, command.followActivityId)) > 0 };
  }

  recipients(query: RpcParsedRequest<typeof Patterns.social.followersPage>) {
    return this.followers.recipients(query.cursor, query.limit);
  }

  /** The followers collection's total: the accepted followers. */
  async acceptedCount(): Promise<number> {
    return (await this.followers.counts()).accepted;
  }

  async list(query: FollowerListQuery): Promise<FollowerListResult> {
    const [{ rows, total }, followers, reactions] = await Promise.all([
      this.followers.page(query),
      this.followers.counts(),
      this.reactions.totals(),
    ]);
    return {
      items: rows.map(followerView),
      total,
      page: query.page,
      pageSize: query.pageSize,
      counts: { ...followers, ...reactions },
    };
  }

  async remove(id: number): Promise<{ removed: true }> {
    if (!(await this.followers.remove(id))) throw RpcError.notFound(SocialErrors.followerNotFound);
    return { removed: true };
  }

  async approve(id: number): Promise<RpcAnswer<typeof Patterns.social.approveFollower>> {
    const row = await this.followers.approve(id);
    if (!row) {
      if (await this.followers.find(id)) throw RpcError.conflict(SocialErrors.notPending);
      throw RpcError.notFound(SocialErrors.followerNotFound);
    }
    // Queued, not sent here: the federation's queue delivers it (and retries).
    await this.accepts.send(
      { actorUri: row.uri, inbox: row.inbox, sharedInbox: row.shared_inbox },
      row.follow_activity_id,
    );
    return { ...followerView(row), actorUri: row.uri, followActivityId: row.follow_activity_id };
  }

  async addFollowing(command: RpcParsedRequest<typeof Patterns.social.addFollowing>) {
    const targetUri = requiredHttpUrl(command.targetUri, 'targetUri');
    const followActivityId = requiredHttpUrl(command.followActivityId, 'followActivityId');
    await this.blocks.assertNotBlocked(targetUri);
    return { created: await this.followers.addFollowing(targetUri, followActivityId) };
  }

  async acceptFollowing(followActivityId: string) {
    return { accepted: await this.followers.acceptFollowing(followActivityId) };
  }

  async removeFollowing(targetUri: string) {
    return { removed: await this.followers.removeFollowing(targetUri) };
  }

  following(query: RpcParsedRequest<typeof Patterns.social.followingPage>) {
    return this.followers.following(query.offset, query.limit);
  }
}
