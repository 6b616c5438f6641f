import { Logger } from '@nestjs/common';
import {
  Patterns,
  reactionCountsQuerySchema,
  type BlockInput,
  type BlockResult,
  type ReactionCounts,
} from '@blog/contracts';
import { z } from 'zod';
import type { ServiceClients } from '../rpc/service-clients.js';

/** A block's answer in the dashboard: the followers it removed and the comments it deleted. */
export interface BlockWithCommentsResult extends BlockResult {
  removedComments: number;
}

/**
 * The dashboard's fediverse actions that span two services: a block (social keeps the block,
 * posts drops the blocked author's comments) and the likes and announces of listed posts.
 */
export class FediverseAdminService {
  private readonly logger = new Logger(FediverseAdminService.name);

  constructor(private readonly services: ServiceClients) {}

  /**
   * The comments go first: a failure there leaves no block, so trying again does both; a
   * block that then fails (already blocked, 409) has only removed what it would have.
   */
  async block(input: BlockInput): Promise<BlockWithCommentsResult> {
    const purge = input.actor !== undefined ? { actorUri: input.actor } : { domain: input.domain };
    const { deleted } = await this.services.call('posts', Patterns.posts.commentPurge, purge);
    const result = await this.services.call('social', Patterns.social.addBlock, input);
    return { ...result, removedComments: deleted };
  }

  /** Likes and announces by post id; none (an empty map) while the social service is away. */
  async reactionCounts(postIds: number[]): Promise<ReactionCounts> {
    if (postIds.length === 0) return {};
    try {
      return await this.services.read('social', Patterns.social.reactionCounts, { postIds });
    } catch (error) {
      this.logger.warn(`reaction counts not read: ${(error as Error).message}`);
      return {};
    }
  }
}

/** `?ids=3,5,8`: the post list's page, checked by the RPC's own rule (positive ids, at most 1000). */
export const reactionIdsQuerySchema = z.object({
  ids: z
    .string()
    .default('')
    .transform((value): unknown[] => value.split(',').filter((id) => id !== ''))
    .pipe(reactionCountsQuerySchema.shape.postIds),
});
export type ReactionIdsQuery = z.infer<typeof reactionIdsQuerySchema>;
