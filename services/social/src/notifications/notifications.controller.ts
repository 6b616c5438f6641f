import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { NotificationsService } from './notifications.service.js';

@Controller()
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @MessagePattern(Patterns.social.notifications)
  page(@Payload() message: RpcEnvelope<unknown>) {
    return this.notifications.page(parseRequest(Patterns.social.notifications, message));
  }

  @MessagePattern(Patterns.social.notificationsUnread)
  unread(@Payload() message: RpcEnvelope<unknown>) {
    parseRequest(Patterns.social.notificationsUnread, message);
    return this.notifications.unread();
  }

  @MessagePattern(Patterns.social.notificationsRead)
  read(@Payload() message: RpcEnvelope<unknown>) {
    return this.notifications.markRead(parseRequest(Patterns.social.notificationsRead, message).upTo);
  }
}
