import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  blockInputSchema,
  followerListQuerySchema,
  Patterns,
  type BlockInput,
  type BlocklistImportReport,
  type BlockListResult,
  type DeliveryFailureListResult,
  type FollowerListQuery,
  type FollowerListResult,
  type FollowerView,
  type ReactionCounts,
} from '@blog/contracts';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { blocklistCsv, parseBlocklist, readBlocklistUpload } from './blocklist-csv.js';
import {
  FediverseAdminService,
  reactionIdsQuerySchema,
  type BlockWithCommentsResult,
  type ReactionIdsQuery,
} from './fediverse-admin.service.js';

/** The dashboard's Fediverse tab: the blog's followers and its blocks (the social service holds the rules). */
@Controller('api/admin/fediverse')
export class FediverseAdminController {
  private readonly admin: FediverseAdminService;

  constructor(private readonly services: ServiceClients) {
    this.admin = new FediverseAdminService(services);
  }

  /** Newest first, paged, with the counts of accepted and pending followers, likes and announces. */
  @Get('followers')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  followers(
    @Query(new ZodPipe(followerListQuerySchema)) query: FollowerListQuery,
  ): Promise<FollowerListResult> {
    return this.services.read('social', Patterns.social.listFollowers, query);
  }

  @Delete('followers/:id')
  @AdminOnly()
  removeFollower(@Param('id') id: string): Promise<{ removed: true }> {
    return this.services.call('social', Patterns.social.removeFollower, { id });
  }

  /** A pending follower (the site approves followers) becomes a follower. */
  @Post('followers/:id/approve')
  @AdminOnly()
  @HttpCode(200)
  async approveFollower(@Param('id') id: string): Promise<FollowerView> {
    const {
      actorUri: _actor,
      followActivityId: _follow,
      ...follower
    } = await this.services.call('social', Patterns.social.approveFollower, { id });
    return follower;
  }

  /**
   * Blocks an account (`{actor}`) or a server (`{domain}`) and deletes its comments; the answer
   * says how many followers and comments went.
   */
  @Post('blocks')
  @AdminOnly()
  @HttpCode(201)
  addBlock(@Body(new ZodPipe(blockInputSchema)) body: BlockInput): Promise<BlockWithCommentsResult> {
    return this.admin.block(body);
  }

  @Get('blocks')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  blocks(): Promise<BlockListResult> {
    return this.services.read('social', Patterns.social.listBlocks, {});
  }

  /**
   * Mastodon's domain-block CSV (the body as text/csv, or the field `file` of a form): each
   * suspended server is blocked, its comments removed; silence and noop rows are skipped, wrong
   * lines reported by number. Importing the same list twice adds nothing.
   */
  @Post('blocks/import')
  @AdminOnly()
  @HttpCode(200)
  async importBlocks(@Req() req: Request): Promise<BlocklistImportReport> {
    return this.admin.importBlocklist(parseBlocklist(await readBlocklistUpload(req)));
  }

  /** The blocked servers as Mastodon's domain-block CSV, to import elsewhere. */
  @Get('blocks/export')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  async exportBlocks(@Res({ passthrough: true }) res: Response): Promise<string> {
    const { items } = await this.services.read('social', Patterns.social.listBlocks, {});
    res.set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': 'attachment; filename="domain_blocks.csv"',
    });
    return blocklistCsv(items);
  }

  @Delete('blocks/:id')
  @AdminOnly()
  removeBlock(@Param('id') id: string): Promise<{ removed: true }> {
    return this.services.call('social', Patterns.social.removeBlock, { id });
  }

  /** Servers the federation gave up delivering to, most recent failure first (at most 100). */
  @Get('deliveries')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  deliveryFailures(): Promise<DeliveryFailureListResult> {
    return this.services.read('social', Patterns.social.deliveryFailures, {});
  }

  /** The owner has seen it: the server's row goes (a later give-up there starts a new one). */
  @Delete('deliveries/:host')
  @AdminOnly()
  dismissDeliveryFailure(@Param('host') host: string): Promise<{ removed: boolean }> {
    return this.services.call('social', Patterns.social.dismissDeliveryFailure, { host });
  }

  /**
   * Likes, boosts and quotes of the dashboard's listed posts (`?ids=1,2`) or notes (`?notes=3,4`);
   * none while social is away.
   */
  @Get('reactions')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  reactions(@Query(new ZodPipe(reactionIdsQuerySchema)) query: ReactionIdsQuery): Promise<ReactionCounts> {
    return this.admin.reactionCounts(query);
  }
}
