import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import {
  loginSchema,
  Patterns,
  registerSchema,
  type LoginCommand,
  type LoginRequest,
  type LoginResponse,
  type PublicUser,
  type RegisterRequest,
  type RegisterResponse,
} from '@blog/contracts';
import type { Request } from 'express';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';

@Controller('api/auth')
export class AuthController {
  constructor(private readonly services: ServiceClients) {}

  @Post('login')
  @HttpCode(200)
  login(@Body(new ZodPipe(loginSchema)) body: LoginRequest, @Req() request: Request): Promise<LoginResponse> {
    const command: LoginCommand = { ...body, ip: request.ip ?? 'unknown' };
    return this.services.call('auth', Patterns.auth.login, command);
  }

  @Post('register')
  @HttpCode(201)
  register(@Body(new ZodPipe(registerSchema)) body: RegisterRequest): Promise<RegisterResponse> {
    return this.services.call('auth', Patterns.auth.register, body);
  }

  @Get('users')
  @AdminOnly()
  users(): Promise<PublicUser[]> {
    return this.services.read('auth', Patterns.auth.listUsers, {});
  }
}
