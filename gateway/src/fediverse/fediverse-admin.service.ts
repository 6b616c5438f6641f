import { Logger } from '@nestjs/common';
import {
  Patterns,
  reactionCountsQuerySchema,
  noteReactionCountsQuerySchema,
  type BlockInput,
  type BlocklistImportReport,
  type BlockResult,
  type ReactionCounts,
} from '@blog/contracts';
import { z } from 'zod';
import type { ServiceClients } from '../rpc/service-clients.js';
import { isRpcErrorBody } from '@blog/contracts';
import type { ParsedBlocklist } from './blocklist-csv.js';

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

  /**
   * Blocks each server of a parsed blocklist as a manual block does (its comments go too);
   * one already blocked is skipped, so importing the same list again changes nothing.
   */
  async importBlocklist(list: ParsedBlocklist): Promise<BlocklistImportReport> {
    const { items } = await this.services.read('social', Patterns.social.listBlocks, {});
    const blocked = new Set(items.map((block) => block.domain).filter((d): d is string => d !== null));
    const report: BlocklistImportReport = {
      added: 0,
      skipped: list.skipped,
      removedComments: 0,
      errors: list.errors,
    };
    for (const { domain } of list.block) {
      if (blocked.has(domain)) {
        report.skipped++;
        continue;
      }
      try {
        report.removedComments += (await this.block({ domain })).removedComments;
        report.added++;
      } catch (error) {
        if (!(isRpcErrorBody(error) && error.status === 409)) throw error;
        report.skipped++; // blocked meanwhile
      }
    }
    return report;
  }

  /**
   * Likes, announces and quotes by post id (`{ ids }`) or by note id (`{ notes }`); none (an
   * empty map) while the social service is away.
   */
  async reactionCounts(query: { ids?: number[]; notes?: number[] }): Promise<ReactionCounts> {
    try {
      if (query.notes !== undefined)
        return query.notes.length
          ? await this.services.read('social', Patterns.social.noteReactionCounts, { noteIds: query.notes })
          : {};
      const postIds = query.ids ?? [];
      return postIds.length
        ? await this.services.read('social', Patterns.social.reactionCounts, { postIds })
        : {};
    } catch (error) {
      this.logger.warn(`reaction counts not read: ${(error as Error).message}`);
      return {};
    }
  }
}

/** A comma-separated list of ids, checked by the RPC's own rule (positive ids, at most 1000). */
const idList = <T extends z.ZodType<number[], unknown[]>>(rule: T) =>
  z
    .string()
    .transform((value): unknown[] => value.split(',').filter((id) => id !== ''))
    .pipe(rule);

/** `?ids=3,5,8`: the post list's page; or `?notes=4,9`: the notes list's. */
export const reactionIdsQuerySchema = z
  .object({
    ids: idList(reactionCountsQuerySchema.shape.postIds).optional(),
    notes: idList(noteReactionCountsQuerySchema.shape.noteIds).optional(),
  })
  .refine((query) => query.ids === undefined || query.notes === undefined, {
    message: 'give ids (posts) or notes, not both',
  });
export type ReactionIdsQuery = z.infer<typeof reactionIdsQuerySchema>;
