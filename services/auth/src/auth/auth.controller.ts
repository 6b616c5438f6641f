import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  loginSchema,
  passwordChangeSchema,
  Patterns,
  registerSchema,
  roleChangeSchema,
  twoFactorConfirmSchema,
  type RpcEnvelope,
} from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { z } from 'zod';
import { UsersService } from '../users/users.service.js';
import { AuthService } from './auth.service.js';

const withIp = { ip: z.string().min(1) };
const actor = z.object({ actorId: z.uuid() });
const userId = z.object({ id: z.uuid('user id must be a UUID') });

@Controller()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
  ) {}

  @MessagePattern(Patterns.auth.login)
  login(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.login(parseOrThrow(loginSchema.extend(withIp), message.data));
  }

  @MessagePattern(Patterns.auth.register)
  register(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.register(parseOrThrow(registerSchema.extend(withIp), message.data));
  }

  @MessagePattern(Patterns.auth.listUsers)
  listUsers() {
    return this.users.list();
  }

  @MessagePattern(Patterns.auth.setRole)
  setRole(@Payload() message: RpcEnvelope<unknown>) {
    const { id, role } = parseOrThrow(userId.extend(roleChangeSchema.shape), message.data);
    return this.auth.setRole(id, role);
  }

  @MessagePattern(Patterns.auth.deleteUser)
  async deleteUser(@Payload() message: RpcEnvelope<unknown>) {
    const { id, actorId } = parseOrThrow(userId.extend(actor.shape), message.data);
    await this.users.delete(id, actorId);
    return { success: true };
  }

  @MessagePattern(Patterns.auth.sessionState)
  sessionState(@Payload() message: RpcEnvelope<unknown>) {
    return this.users.sessionState(parseOrThrow(userId, message.data).id);
  }

  @MessagePattern(Patterns.auth.account)
  account(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.account(parseOrThrow(actor, message.data).actorId);
  }

  @MessagePattern(Patterns.auth.changePassword)
  changePassword(@Payload() message: RpcEnvelope<unknown>) {
    const { actorId, ...change } = parseOrThrow(passwordChangeSchema.extend(actor.shape), message.data);
    return this.auth.changePassword(actorId, change);
  }

  @MessagePattern(Patterns.auth.revokeSessions)
  revokeSessions(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.revokeSessions(parseOrThrow(actor, message.data).actorId);
  }

  @MessagePattern(Patterns.auth.twoFactorSetup)
  twoFactorSetup(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.setupTwoFactor(parseOrThrow(actor, message.data).actorId);
  }

  @MessagePattern(Patterns.auth.twoFactorEnable)
  twoFactorEnable(@Payload() message: RpcEnvelope<unknown>) {
    const { actorId, ...confirm } = parseOrThrow(twoFactorConfirmSchema.extend(actor.shape), message.data);
    return this.auth.enableTwoFactor(actorId, confirm);
  }

  @MessagePattern(Patterns.auth.twoFactorDisable)
  twoFactorDisable(@Payload() message: RpcEnvelope<unknown>) {
    const { actorId, ...confirm } = parseOrThrow(twoFactorConfirmSchema.extend(actor.shape), message.data);
    return this.auth.disableTwoFactor(actorId, confirm);
  }

  @MessagePattern(Patterns.auth.twoFactorRecoveryCodes)
  twoFactorRecoveryCodes(@Payload() message: RpcEnvelope<unknown>) {
    const { actorId, ...confirm } = parseOrThrow(twoFactorConfirmSchema.extend(actor.shape), message.data);
    return this.auth.newRecoveryCodes(actorId, confirm);
  }
}
