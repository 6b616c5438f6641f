import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { ReaderService } from './reader.service.js';

@Controller()
export class ReaderController {
  constructor(private readonly reader: ReaderService) {}

  @MessagePattern(Patterns.social.readerPage)
  page(@Payload() message: RpcEnvelope<unknown>) {
    return this.reader.page(parseRequest(Patterns.social.readerPage, message));
  }

  @MessagePattern(Patterns.social.ownReaction)
  react(@Payload() message: RpcEnvelope<unknown>) {
    const { object, kind, active } = parseRequest(Patterns.social.ownReaction, message);
    return this.reader.react(object, kind, active);
  }
}
