import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  MailText,
  Patterns,
  subscribeSchema,
  subscriberListQuerySchema,
  tokenCommandSchema,
  type RpcEnvelope,
} from '@blog/contracts';
import { parseOrThrow, RpcError } from '@blog/server-kit';
import { z } from 'zod';
import { SubscriptionsService } from './subscriptions.service.js';

const subscribeCommandSchema = subscribeSchema.extend({ ip: z.string().min(1).max(64) });

/** A malformed token is answered like an unknown one: the link is invalid. */
function tokenOf(data: unknown): string {
  const result = tokenCommandSchema.safeParse(data);
  if (!result.success) throw RpcError.notFound(MailText.invalidLink);
  return result.data.token;
}

const restoreSchema = z.object({
  subscribers: z
    .array(
      z.object({
        email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
        status: z.enum(['pending', 'confirmed', 'unsubscribed']),
        createdAt: z.iso.datetime(),
        confirmedAt: z.iso.datetime().nullable(),
        unsubscribedAt: z.iso.datetime().nullable(),
      }),
    )
    .max(1000),
  /** The archive is this blog's own; by default it is not, and confirmations are not carried over. */
  madeHere: z.boolean().default(false),
});

@Controller()
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @MessagePattern(Patterns.mail.subscribe)
  subscribe(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.subscribe(parseOrThrow(subscribeCommandSchema, message.data));
  }

  @MessagePattern(Patterns.mail.confirm)
  confirm(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.confirm(tokenOf(message.data));
  }

  @MessagePattern(Patterns.mail.unsubscribeInfo)
  unsubscribeInfo(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.unsubscribeInfo(tokenOf(message.data));
  }

  @MessagePattern(Patterns.mail.unsubscribe)
  unsubscribe(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.unsubscribe(tokenOf(message.data));
  }

  @MessagePattern(Patterns.mail.restoreSubscribers)
  restore(@Payload() message: RpcEnvelope<unknown>) {
    const { subscribers, madeHere } = parseOrThrow(restoreSchema, message.data);
    return this.subscriptions.restore(subscribers, madeHere);
  }

  @MessagePattern(Patterns.mail.listSubscribers)
  list(@Payload() message: RpcEnvelope<unknown>) {
    return this.subscriptions.list(parseOrThrow(subscriberListQuerySchema, message.data ?? {}));
  }
}
