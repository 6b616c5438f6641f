import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { BlocksService } from './blocks.service.js';

@Controller()
export class BlocksController {
  constructor(private readonly blocks: BlocksService) {}

  @MessagePattern(Patterns.social.blocked)
  blocked(@Payload() message: RpcEnvelope<unknown>) {
    return this.blocks.blocked(parseRequest(Patterns.social.blocked, message).actorUri);
  }

  @MessagePattern(Patterns.social.addBlock)
  add(@Payload() message: RpcEnvelope<unknown>) {
    return this.blocks.add(parseRequest(Patterns.social.addBlock, message));
  }

  @MessagePattern(Patterns.social.listBlocks)
  list(@Payload() message: RpcEnvelope<unknown>) {
    parseRequest(Patterns.social.listBlocks, message);
    return this.blocks.list();
  }

  @MessagePattern(Patterns.social.removeBlock)
  remove(@Payload() message: RpcEnvelope<unknown>) {
    return this.blocks.remove(parseRequest(Patterns.social.removeBlock, message).id);
  }
}
