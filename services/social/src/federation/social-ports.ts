import {
  reactionSubject,
  Patterns,
  RpcContracts,
  type RpcParsedRequest,
  type TypedPattern,
} from '@blog/contracts';
import type { FederationPorts } from '@blog/federation';
import { parseOrThrow } from '@blog/server-kit';
import type { INestApplicationContext } from '@nestjs/common';
import { BlocksService } from '../blocks/blocks.service.js';
import { FollowersService } from '../followers/followers.service.js';
import { ActorKeysService } from '../keys/actor-keys.service.js';
import { OwnerFollowingService } from '../followers/owner-following.service.js';
import { NotificationsService } from '../notifications/notifications.service.js';
import { ReactionsService } from '../reactions/reactions.service.js';
import { ReaderService } from '../reader/reader.service.js';
import { InteropService } from '../interop/interop.service.js';

/** The part of the federation's ports this service answers itself (the rest is posts' and the site's). */
export type SocialPorts = Pick<
  FederationPorts,
  | 'actorKeys'
  | 'followers'
  | 'following'
  | 'followAccepted'
  | 'followRejected'
  | 'reader'
  | 'notify'
  | 'blocked'
  | 'reaction'
  | 'undoReaction'
  | 'quotes'
>;

/** Enough for the following collection; a blog follows few accounts. */
const FOLLOWING_MAX = 1000;

/**
 * What the federation hands over is checked with the contract the RPC handlers use: a bad value
 * is the same RpcError (400), and what is stored has the same form (a handle without its "@").
 */
function checked<P extends TypedPattern>(pattern: P, data: unknown): RpcParsedRequest<P> {
  return parseOrThrow(RpcContracts[pattern].request, data) as RpcParsedRequest<P>;
}

/**
 * The social half of FederationPorts on this service's own rules, for the federation that runs
 * in this process (its queue's listeners). `origin` is SITE_URL, which the Article ids start
 * with; `approveFollowers` reads the site's setting when a Follow arrives.
 */
export function socialPorts(
  app: Pick<INestApplicationContext, 'get'>,
  options: { origin: string; approveFollowers: () => Promise<boolean> },
): SocialPorts {
  const keys = app.get(ActorKeysService);
  const followers = app.get(FollowersService);
  const blocks = app.get(BlocksService);
  const reactions = app.get(ReactionsService);
  const owner = app.get(OwnerFollowingService);
  const reader = app.get(ReaderService);
  const notifications = app.get(NotificationsService);
  const interop = app.get(InteropService);
  return {
    actorKeys: () => keys.pairs(),
    followers: {
      // async, so that a refused cursor is a rejection rather than a throw.
      async page(cursor, limit) {
        return followers.recipients(checked(Patterns.social.followersPage, { cursor, limit }));
      },
      count: () => followers.acceptedCount(),
      async add(follower) {
        const requireApproval = await options.approveFollowers();
        const command = checked(Patterns.social.follow, { ...follower, requireApproval });
        return (await followers.follow(command)).status;
      },
      async remove(actorUri) {
        await followers.unfollow(checked(Patterns.social.unfollow, { actorUri }));
      },
      isFollower: (actorUri) => interop.isFollower(actorUri),
      move: (oldActorUri, account) => interop.moveFollower(oldActorUri, account),
    },
    quotes: {
      add: (stamp) => interop.addQuote(stamp, options.origin),
      stamp: (id) => interop.stamp(id),
    },
    async following() {
      const query = checked(Patterns.social.followingPage, { offset: 0, limit: FOLLOWING_MAX });
      return (await followers.following(query)).items;
    },
    followAccepted: (followActivityId, actorUri) => owner.answered(followActivityId, actorUri, true),
    followRejected: (followActivityId, actorUri) => owner.answered(followActivityId, actorUri, false),
    reader: {
      follows: (actorUri) => reader.follows(actorUri),
      add: (entry) => reader.add(entry),
      update: (entry) => reader.update(entry),
      remove: (objectUri, actorUri) => reader.remove(objectUri, actorUri),
      removeBoost: (activityId, actorUri) => reader.removeBoost(activityId, actorUri),
    },
    notify: (notification) => notifications.add(notification),
    blocked: (actorUri) => blocks.blocked(checked(Patterns.social.blocked, { actorUri }).actorUri),
    // Likes and announces of anything but one of our posts or notes are not counted.
    async reaction({ kind, activityId, actorUri, objectUri }) {
      const subject = reactionSubject(objectUri, options.origin);
      if (subject === null) return;
      await reactions.add(checked(Patterns.social.reaction, { kind, activityId, actorUri, ...subject }));
    },
    async undoReaction(activityId, actorUri) {
      await reactions.undo(checked(Patterns.social.undoReaction, { activityId, actorUri }));
    },
  };
}
