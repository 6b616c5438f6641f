import { Injectable } from '@nestjs/common';
import {
  actorHost,
  SocialErrors,
  type BlockListResult,
  type BlockResult,
  type RpcParsedRequest,
  type Patterns,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { BlocksRepository, type BlockTarget } from './blocks.repository.js';

/** Blocks: an account's or a whole server's later activities are dropped and its followers removed. */
@Injectable()
export class BlocksService {
  constructor(private readonly blocks: BlocksRepository) {}

  /** Removing that account's or server's comments is the posts service's part (its own call). */
  async add(input: RpcParsedRequest<typeof Patterns.social.addBlock>): Promise<BlockResult> {
    const target: BlockTarget =
      input.actor !== undefined ? { actor: input.actor } : { domain: input.domain! };
    const result = await this.blocks.add(target);
    if (!result) throw RpcError.conflict(SocialErrors.alreadyBlocked);
    return result;
  }

  async list(): Promise<BlockListResult> {
    const items = await this.blocks.list();
    return { items, total: items.length };
  }

  async remove(id: number): Promise<{ removed: true }> {
    if (!(await this.blocks.remove(id))) throw RpcError.notFound(SocialErrors.blockNotFound);
    return { removed: true };
  }

  /** Blocked by an account block or by a block of its server (or a parent domain of it). */
  blocked(actorUri: string): Promise<boolean> {
    return this.blocks.isBlocked(actorUri, actorHost(actorUri));
  }

  /** Refuses what a blocked actor sends (the federation checks first; this keeps the rule here too). */
  async assertNotBlocked(actorUri: string): Promise<void> {
    if (await this.blocked(actorUri)) throw RpcError.forbidden(SocialErrors.blocked);
  }
}
