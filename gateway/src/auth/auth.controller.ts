import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Req, UseGuards } from '@nestjs/common';
import {
  ErrorText,
  loginSchema,
  passwordChangeSchema,
  Patterns,
  registerSchema,
  roleChangeSchema,
  twoFactorConfirmSchema,
  type AccountView,
  type LoginRequest,
  type LoginResponse,
  type PasswordChange,
  type PublicUser,
  type RegisterRequest,
  type RegisterResponse,
  type RoleChange,
  type TwoFactorConfirm,
  type TwoFactorDisabled,
  type TwoFactorEnabled,
  type TwoFactorSetup,
} from '@blog/contracts';
import type { Request } from 'express';
import { ApiError } from '../common/api-error.js';
import { AdminOnly, AuthGuard, type AuthenticatedRequest } from '../common/auth.guard.js';
import { SessionVerifier } from '../common/session-verifier.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { SiteConfigSource } from '../site/site-config-source.js';
import { ServiceClients } from '../rpc/service-clients.js';

const clientIp = (request: Request) => request.ip ?? 'unknown';

@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly services: ServiceClients,
    private readonly sessions: SessionVerifier,
    private readonly site: SiteConfigSource,
  ) {}

  @Post('login')
  @HttpCode(200)
  login(@Body(new ZodPipe(loginSchema)) body: LoginRequest, @Req() request: Request): Promise<LoginResponse> {
    return this.services.call('auth', Patterns.auth.login, { ...body, ip: clientIp(request) });
  }

  @Post('register')
  @HttpCode(201)
  async register(
    @Body(new ZodPipe(registerSchema)) body: RegisterRequest,
    @Req() request: Request,
  ): Promise<RegisterResponse> {
    if (!(await this.site.get()).registrationOpen) throw new ApiError(403, ErrorText.registrationClosed);
    return this.services.call('auth', Patterns.auth.register, { ...body, ip: clientIp(request) });
  }

  @Get('users')
  @AdminOnly()
  users(): Promise<PublicUser[]> {
    return this.services.read('auth', Patterns.auth.listUsers, {});
  }

  @Put('users/:id')
  @AdminOnly()
  async setRole(
    @Param('id') id: string,
    @Body(new ZodPipe(roleChangeSchema)) body: RoleChange,
  ): Promise<PublicUser> {
    const user = await this.services.call('auth', Patterns.auth.setRole, { id, ...body });
    this.sessions.forget(id);
    return user;
  }

  @Delete('users/:id')
  @AdminOnly()
  async deleteUser(
    @Param('id') id: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ success: true }> {
    const answer = await this.services.call('auth', Patterns.auth.deleteUser, {
      id,
      actorId: request.user!.sub,
    });
    this.sessions.forget(id);
    return answer;
  }

  /** The signed-in person's own account (the Account tab). */
  @Get('account')
  @UseGuards(AuthGuard)
  account(@Req() request: AuthenticatedRequest): Promise<AccountView> {
    return this.services.read('auth', Patterns.auth.account, { actorId: request.user!.sub });
  }

  /** A new password: every older token stops working; the answer is a new session. */
  @Put('password')
  @UseGuards(AuthGuard)
  async changePassword(
    @Body(new ZodPipe(passwordChangeSchema)) body: PasswordChange,
    @Req() request: AuthenticatedRequest,
  ): Promise<LoginResponse> {
    const actorId = request.user!.sub;
    const session = await this.services.call('auth', Patterns.auth.changePassword, {
      ...body,
      actorId,
    });
    this.sessions.forget(actorId);
    return session;
  }

  /** Sign out everywhere: every token so far stops working; the answer is a new session for this device. */
  @Post('sessions/revoke')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  async revokeSessions(@Req() request: AuthenticatedRequest): Promise<LoginResponse> {
    const actorId = request.user!.sub;
    const session = await this.services.call('auth', Patterns.auth.revokeSessions, {
      actorId,
    });
    this.sessions.forget(actorId);
    return session;
  }

  @Post('2fa/setup')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  twoFactorSetup(@Req() request: AuthenticatedRequest): Promise<TwoFactorSetup> {
    return this.services.call('auth', Patterns.auth.twoFactorSetup, { actorId: request.user!.sub });
  }

  /** `{ password, code }`: the current password beside the first code from the app; answers the recovery codes. */
  @Post('2fa/enable')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  twoFactorEnable(
    @Body(new ZodPipe(twoFactorConfirmSchema)) body: TwoFactorConfirm,
    @Req() request: AuthenticatedRequest,
  ): Promise<TwoFactorEnabled> {
    return this.services.call('auth', Patterns.auth.twoFactorEnable, { ...body, actorId: request.user!.sub });
  }

  /** `{ password, code }`: turns it off and signs out every other session; the answer carries this one's new token. */
  @Post('2fa/disable')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  async twoFactorDisable(
    @Body(new ZodPipe(twoFactorConfirmSchema)) body: TwoFactorConfirm,
    @Req() request: AuthenticatedRequest,
  ): Promise<TwoFactorDisabled> {
    const actorId = request.user!.sub;
    const answer = await this.services.call('auth', Patterns.auth.twoFactorDisable, {
      ...body,
      actorId,
    });
    this.sessions.forget(actorId);
    return answer;
  }

  /** `{ password, code }`: ten new recovery codes, shown once; the old ones stop working. */
  @Post('2fa/recovery-codes')
  @HttpCode(200)
  @UseGuards(AuthGuard)
  twoFactorRecoveryCodes(
    @Body(new ZodPipe(twoFactorConfirmSchema)) body: TwoFactorConfirm,
    @Req() request: AuthenticatedRequest,
  ): Promise<TwoFactorEnabled> {
    return this.services.call('auth', Patterns.auth.twoFactorRecoveryCodes, {
      ...body,
      actorId: request.user!.sub,
    });
  }
}
