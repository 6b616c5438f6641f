import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { UsersService } from '../users/users.service.js';
import { AuthService } from './auth.service.js';

@Controller()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
  ) {}

  @MessagePattern(Patterns.auth.login)
  login(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.login(parseRequest(Patterns.auth.login, message));
  }

  @MessagePattern(Patterns.auth.register)
  register(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.register(parseRequest(Patterns.auth.register, message));
  }

  @MessagePattern(Patterns.auth.listUsers)
  listUsers() {
    return this.users.list();
  }

  @MessagePattern(Patterns.auth.setRole)
  setRole(@Payload() message: RpcEnvelope<unknown>) {
    const { id, role } = parseRequest(Patterns.auth.setRole, message);
    return this.auth.setRole(id, role);
  }

  @MessagePattern(Patterns.auth.deleteUser)
  async deleteUser(@Payload() message: RpcEnvelope<unknown>) {
    const { id, actorId } = parseRequest(Patterns.auth.deleteUser, message);
    await this.users.delete(id, actorId);
    return { success: true };
  }

  @MessagePattern(Patterns.auth.sessionState)
  sessionState(@Payload() message: RpcEnvelope<unknown>) {
    return this.users.sessionState(parseRequest(Patterns.auth.sessionState, message).id);
  }

  @MessagePattern(Patterns.auth.account)
  account(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.account(parseRequest(Patterns.auth.account, message).actorId);
  }

  @MessagePattern(Patterns.auth.changePassword)
  changePassword(@Payload() message: RpcEnvelope<unknown>) {
    const { actorId, ...change } = parseRequest(Patterns.auth.changePassword, message);
    return this.auth.changePassword(actorId, change);
  }

  @MessagePattern(Patterns.auth.revokeSessions)
  revokeSessions(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.revokeSessions(parseRequest(Patterns.auth.revokeSessions, message).actorId);
  }

  @MessagePattern(Patterns.auth.twoFactorSetup)
  twoFactorSetup(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.setupTwoFactor(parseRequest(Patterns.auth.twoFactorSetup, message).actorId);
  }

  @MessagePattern(Patterns.auth.twoFactorEnable)
  twoFactorEnable(@Payload() message: RpcEnvelope<unknown>) {
    const { actorId, ...confirm } = parseRequest(Patterns.auth.twoFactorEnable, message);
    return this.auth.enableTwoFactor(actorId, confirm);
  }

  @MessagePattern(Patterns.auth.twoFactorDisable)
  twoFactorDisable(@Payload() message: RpcEnvelope<unknown>) {
    const { actorId, ...confirm } = parseRequest(Patterns.auth.twoFactorDisable, message);
    return this.auth.disableTwoFactor(actorId, confirm);
  }

  @MessagePattern(Patterns.auth.twoFactorRecoveryCodes)
  twoFactorRecoveryCodes(@Payload() message: RpcEnvelope<unknown>) {
    const { actorId, ...confirm } = parseRequest(Patterns.auth.twoFactorRecoveryCodes, message);
    return this.auth.newRecoveryCodes(actorId, confirm);
  }
}
