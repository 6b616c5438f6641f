import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  followAccountSchema,
  notificationsQuerySchema,
  notificationsReadSchema,
  objectActionSchema,
  Patterns,
  readerQuerySchema,
  type FollowAccountInput,
  type FollowingListResult,
  type FollowingView,
  type NotificationsPage,
  type NotificationsQuery,
  type ObjectActionInput,
  type OwnReactionKind,
  type OwnReactionResult,
  type ReaderPage,
  type ReaderQuery,
} from '@blog/contracts';
import { z } from 'zod';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';

/**
 * A lookup (WebFinger, then the actor's document) or a like of a post the blog has not seen
 * fetches from another server, each fetch within 4 s: more than a plain RPC's wait.
 */
const REMOTE_ACTION_MS = 15_000;

/** The owner's side of the fediverse: following, the Reader, likes and boosts, notifications. */
@Controller('api/admin/fediverse')
export class FediverseOwnerController {
  constructor(private readonly services: ServiceClients) {}

  /** `{account}`: `@user@server`, or an actor or profile URL; answers the account, pending or accepted. */
  @Post('following')
  @AdminOnly()
  @HttpCode(201)
  follow(@Body(new ZodPipe(followAccountSchema)) body: FollowAccountInput): Promise<FollowingView> {
    return this.services.call('social', Patterns.social.ownerFollow, body, REMOTE_ACTION_MS);
  }

  @Get('following')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  following(): Promise<FollowingListResult> {
    return this.services.read('social', Patterns.social.ownerFollowing, {});
  }

  /** Sends Undo{Follow} and forgets the account. */
  @Delete('following/:id')
  @AdminOnly()
  unfollow(@Param('id') id: string): Promise<{ removed: true }> {
    return this.services.call('social', Patterns.social.ownerUnfollow, { id });
  }

  /** What the followed accounts post and boost, newest first; `next` is the following page's cursor. */
  @Get('reader')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  reader(@Query(new ZodPipe(readerQuerySchema)) query: ReaderQuery): Promise<ReaderPage> {
    return this.services.read('social', Patterns.social.readerPage, query);
  }

  @Post('likes')
  @AdminOnly()
  @HttpCode(200)
  like(@Body(new ZodPipe(objectActionSchema)) body: ObjectActionInput): Promise<OwnReactionResult> {
    return this.react(body.object, 'like', true);
  }

  @Delete('likes')
  @AdminOnly()
  unlike(@Body(new ZodPipe(objectActionSchema)) body: ObjectActionInput): Promise<OwnReactionResult> {
    return this.react(body.object, 'like', false);
  }

  @Post('boosts')
  @AdminOnly()
  @HttpCode(200)
  boost(@Body(new ZodPipe(objectActionSchema)) body: ObjectActionInput): Promise<OwnReactionResult> {
    return this.react(body.object, 'boost', true);
  }

  @Delete('boosts')
  @AdminOnly()
  unboost(@Body(new ZodPipe(objectActionSchema)) body: ObjectActionInput): Promise<OwnReactionResult> {
    return this.react(body.object, 'boost', false);
  }

  @Get('notifications')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  notifications(
    @Query(new ZodPipe(notificationsQuerySchema)) query: NotificationsQuery,
  ): Promise<NotificationsPage> {
    return this.services.read('social', Patterns.social.notifications, query);
  }

  /** The navigation's badge: how many are unread. */
  @Get('notifications/unread')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  unread(): Promise<{ unread: number }> {
    return this.services.read('social', Patterns.social.notificationsUnread, {});
  }

  /** `{upTo?}`: every unread one, or those up to an id, are marked read. */
  @Post('notifications/read')
  @AdminOnly()
  @HttpCode(200)
  markRead(
    @Body(new ZodPipe(notificationsReadSchema)) body: z.infer<typeof notificationsReadSchema>,
  ): Promise<{ marked: number }> {
    return this.services.call('social', Patterns.social.notificationsRead, body);
  }

  private react(object: string, kind: OwnReactionKind, active: boolean): Promise<OwnReactionResult> {
    return this.services.call(
      'social',
      Patterns.social.ownReaction,
      { object, kind, active },
      REMOTE_ACTION_MS,
    );
  }
}
