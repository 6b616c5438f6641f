import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { MailText, Patterns, RpcContracts, type RpcEnvelope } from '@blog/contracts';
import { parseRequest, RpcError } from '@blog/server-kit';
import { SubscriptionsService } from './subscriptions.service.js';

type LinkPattern =
  typeof Patterns.mail.confirm | typeof Patterns.mail.unsubscribeInfo | typeof Patterns.mail.unsubscribe;

/** A link's token; a malformed one is answered like an unknown one: the link is invalid. */
function tokenOf(pattern: LinkPattern, message: RpcEnvelope<unknown>): string {
  const result = RpcContracts[pattern].request.safeParse(message.data);
  if (!result.success) throw RpcError.notFound(MailText.invalidLink);
  return result.data.token;
}

@Controller()
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @MessagePattern(Patterns.mail.subscribe)
  subscribe(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.subscribe(parseRequest(Patterns.mail.subscribe, message));
  }

  @MessagePattern(Patterns.mail.confirm)
  confirm(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.confirm(tokenOf(Patterns.mail.confirm, message));
  }

  @MessagePattern(Patterns.mail.unsubscribeInfo)
  unsubscribeInfo(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.unsubscribeInfo(tokenOf(Patterns.mail.unsubscribeInfo, message));
  }

  @MessagePattern(Patterns.mail.unsubscribe)
  unsubscribe(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.unsubscribe(tokenOf(Patterns.mail.unsubscribe, message));
  }

  @MessagePattern(Patterns.mail.restoreSubscribers)
  restore(@Payload() message: RpcEnvelope<unknown>) {
    const { subscribers, madeHere } = parseRequest(Patterns.mail.restoreSubscribers, message);
    return this.subscriptions.restore(subscribers, madeHere);
  }

  @MessagePattern(Patterns.mail.listSubscribers)
  list(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.list(parseRequest(Patterns.mail.listSubscribers, message));
  }
}
