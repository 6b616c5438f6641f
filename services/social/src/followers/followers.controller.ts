import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { FollowersService } from './followers.service.js';

@Controller()
export class FollowersController {
  constructor(private readonly followers: FollowersService) {}

  @MessagePattern(Patterns.social.follow)
  follow(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.follow(parseRequest(Patterns.social.follow, message));
  }

  @MessagePattern(Patterns.social.unfollow)
  unfollow(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.unfollow(parseRequest(Patterns.social.unfollow, message));
  }

  @MessagePattern(Patterns.social.followersPage)
  page(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.recipients(parseRequest(Patterns.social.followersPage, message));
  }

  @MessagePattern(Patterns.social.listFollowers)
  list(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.list(parseRequest(Patterns.social.listFollowers, message));
  }

  @MessagePattern(Patterns.social.removeFollower)
  remove(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.remove(parseRequest(Patterns.social.removeFollower, message).id);
  }

  @MessagePattern(Patterns.social.approveFollower)
  approve(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.approve(parseRequest(Patterns.social.approveFollower, message).id);
  }

  @MessagePattern(Patterns.social.addFollowing)
  addFollowing(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.addFollowing(parseRequest(Patterns.social.addFollowing, message));
  }

  @MessagePattern(Patterns.social.acceptFollowing)
  acceptFollowing(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.acceptFollowing(
      parseRequest(Patterns.social.acceptFollowing, message).followActivityId,
    );
  }

  @MessagePattern(Patterns.social.removeFollowing)
  removeFollowing(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.removeFollowing(parseRequest(Patterns.social.removeFollowing, message).targetUri);
  }

  @MessagePattern(Patterns.social.followingPage)
  following(@Payload() message: RpcEnvelope<unknown>) {
    return this.followers.following(parseRequest(Patterns.social.followingPage, message));
  }
}
