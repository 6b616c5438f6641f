import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { ContactService } from './contact.service.js';

@Controller()
export class ContactController {
  constructor(private readonly contact: ContactService) {}

  @MessagePattern(Patterns.mail.contact)
  submit(@Payload() message: RpcEnvelope<unknown>) {
    return this.contact.submit(parseRequest(Patterns.mail.contact, message));
  }

  @MessagePattern(Patterns.mail.listMessages)
  list(@Payload() message: RpcEnvelope<unknown>) {
    return this.contact.list(parseRequest(Patterns.mail.listMessages, message));
  }
}
