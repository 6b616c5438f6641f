import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { loginSchema, Patterns, registerSchema, type RpcEnvelope } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { z } from 'zod';
import { UsersService } from '../users/users.service.js';
import { AuthService } from './auth.service.js';

const loginCommandSchema = loginSchema.extend({ ip: z.string().min(1) });

@Controller()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
  ) {}

  @MessagePattern(Patterns.auth.login)
  login(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.login(parseOrThrow(loginCommandSchema, message.data));
  }

  @MessagePattern(Patterns.auth.register)
  register(@Payload() message: RpcEnvelope<unknown>) {
    return this.auth.register(parseOrThrow(registerSchema, message.data));
  }

  @MessagePattern(Patterns.auth.listUsers)
  listUsers() {
    return this.users.list();
  }
}
