import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { contactSchema, messageListQuerySchema, Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { z } from 'zod';
import { ContactService } from './contact.service.js';

const contactCommandSchema = contactSchema.extend({ ip: z.string().min(1).max(64) });

@Controller()
export class ContactController {
  constructor(private readonly contact: ContactService) {}

  @MessagePattern(Patterns.mail.contact)
  submit(@Payload() message: RpcEnvelope<unknown>) {
    return this.contact.submit(parseOrThrow(contactCommandSchema, message.data));
  }

  @MessagePattern(Patterns.mail.listMessages)
  list(@Payload() message: RpcEnvelope<unknown>) {
    return this.contact.list(parseOrThrow(messageListQuerySchema, message.data ?? {}));
  }
}
