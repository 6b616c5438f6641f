import { Injectable } from '@nestjs/common';
import { reactionSubject, type MoveFollowersInput, type MoveFollowersResult } from '@blog/contracts';
import { MoveRefusedError, type QuoteStamp, type RemoteFollower } from '@blog/federation';
import { RpcError } from '@blog/server-kit';
import { BlocksService } from '../blocks/blocks.service.js';
import { FederationRef } from '../federation/federation-ref.js';
import { RemoteActorsService } from '../followers/remote-actors.service.js';
import { requiredHttpUrl } from '../followers/remote-links.js';
import { InteropRepository } from './interop.repository.js';

/**
 * What other servers ask beyond follows and replies: accepted quotes and their stamps, a
 * follower's move to a new account, and the owner's move of the blog's followers.
 */
@Injectable()
export class InteropService {
  constructor(
    private readonly interop: InteropRepository,
    private readonly actors: RemoteActorsService,
    private readonly blocks: BlocksService,
    private readonly runtime: FederationRef,
  ) {}

  /** A quote of one of our posts or notes counts with its likes and boosts (`origin` tells which). */
  async addQuote(stamp: QuoteStamp, origin: string): Promise<void> {
    for (const [field, value] of Object.entries({
      activityId: stamp.activityId,
      actorUri: stamp.actorUri,
      quoteUri: stamp.quoteUri,
    }))
      requiredHttpUrl(value, field);
    await this.blocks.assertNotBlocked(stamp.actorUri);
    await this.interop.addQuote(stamp, reactionSubject(stamp.objectUri, origin));
  }

  stamp(id: string): Promise<QuoteStamp | null> {
    return this.interop.stamp(id);
  }

  isFollower(actorUri: string): Promise<boolean> {
    return this.interop.isFollower(actorUri);
  }

  /** The federation checked the new account's alsoKnownAs; the follower row names it now. */
  async moveFollower(oldActorUri: string, account: RemoteFollower): Promise<boolean> {
    await this.blocks.assertNotBlocked(account.actorUri);
    return this.interop.moveFollower(oldActorUri, await this.actors.remember(account));
  }

  /** The owner's move: 422 unless the target's actor lists the blog; storing movedTo is the site's. */
  async moveFollowers(input: MoveFollowersInput): Promise<MoveFollowersResult> {
    try {
      return { movedTo: await this.runtime.blog.moveFollowersTo(input.target) };
    } catch (error) {
      if (error instanceof MoveRefusedError) throw RpcError.unprocessable(error.message);
      throw error;
    }
  }
}
