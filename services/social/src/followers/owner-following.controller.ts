import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { OwnerFollowingService } from './owner-following.service.js';

@Controller()
export class OwnerFollowingController {
  constructor(private readonly following: OwnerFollowingService) {}

  @MessagePattern(Patterns.social.ownerFollow)
  follow(@Payload() message: RpcEnvelope<unknown>) {
    return this.following.follow(parseRequest(Patterns.social.ownerFollow, message));
  }

  @MessagePattern(Patterns.social.ownerFollowing)
  list(@Payload() message: RpcEnvelope<unknown>) {
    parseRequest(Patterns.social.ownerFollowing, message);
    return this.following.list();
  }

  @MessagePattern(Patterns.social.ownerUnfollow)
  unfollow(@Payload() message: RpcEnvelope<unknown>) {
    return this.following.unfollow(parseRequest(Patterns.social.ownerUnfollow, message).id);
  }
}
