import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import {
  fediverseOf,
  moveFollowersSchema,
  Patterns,
  type MoveFollowersInput,
  type MoveFollowersResult,
} from '@blog/contracts';
import { AdminOnly } from '../common/auth.guard.js';
import type { PublicCache } from '../common/public-cache.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { SiteConfigSource } from '../site/site-config-source.js';
import { PUBLIC_CACHE } from '../tokens.js';

/** The target's actor is fetched from its server (4 s a fetch) before the Move is queued. */
const MOVE_MS = 15_000;

/** The owner moves the blog's followers to another account (FEP-7628). */
@Controller('api/admin/fediverse')
export class FediverseMoveController {
  constructor(
    private readonly services: ServiceClients,
    private readonly site: SiteConfigSource,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {}

  /**
   * `{target}`: the account's actor URL, whose alsoKnownAs must list the blog's actor (else 422,
   * nothing sent). Social sends Move to every follower; the site then keeps `movedTo`, which the
   * actor shows until the owner clears it in the Site tab.
   */
  @Post('move')
  @AdminOnly()
  @HttpCode(200)
  async move(@Body(new ZodPipe(moveFollowersSchema)) body: MoveFollowersInput): Promise<MoveFollowersResult> {
    const moved = await this.services.call('social', Patterns.social.moveFollowers, body, MOVE_MS);
    const current = await this.services.read('posts', Patterns.posts.site, {});
    await this.services.call('posts', Patterns.posts.updateSite, {
      site: { ...current, fediverse: { ...fediverseOf(current), movedTo: moved.movedTo } },
    });
    this.site.forget();
    this.cache.clear();
    return moved;
  }
}
