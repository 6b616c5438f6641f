import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import {
  ErrorText,
  type AccountView,
  type LoginCommand,
  type LoginResponse,
  type PasswordChange,
  type PublicUser,
  type RegisterCommand,
  type RegisterResponse,
  type TokenClaims,
  type TwoFactorEnabled,
  type TwoFactorSetup,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { PasswordHasher } from '../users/password-hasher.js';
import type { User } from '../users/user.entity.js';
import { UsersService, toPublicUser } from '../users/users.service.js';
import { LoginThrottle } from './login-throttle.service.js';
import { TwoFactor } from './two-factor.service.js';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly twoFactor: TwoFactor,
    private readonly jwt: JwtService,
  ) {}

  /**
   * One answer for an unknown user and a wrong password, in the same time. With two-factor
   * sign-in on, a right password without a right code is refused too, and every such try
   * counts towards the same limit as a wrong password (the count is cleared only on success).
   */
  async login({ username, password, code, ip }: LoginCommand): Promise<LoginResponse> {
    const key = LoginThrottle.key(ip, username);
    await this.throttle.admit(key);
    const user = await this.users.findByUsername(username);
    const valid = user
      ? await this.hasher.verify(user.passwordHash, password)
      : await this.hasher.verifyAgainstNothing(password);
    if (!user || !valid) throw RpcError.unauthorized(ErrorText.invalidCredentials);
    if (user.totpEnabled) {
      if (!code) throw RpcError.twoFactorRequired();
      const use = this.twoFactor.verify(user, code);
      if (!(await this.users.spendTwoFactor(user, use)))
        throw RpcError.unauthorized(ErrorText.invalidTwoFactorCode);
    }
    await this.throttle.reset(key);
    return this.session(user);
  }

  async register({ username, password, ip }: RegisterCommand): Promise<RegisterResponse> {
    await this.throttle.admitRegistration(ip);
    const user = await this.users.create(username, password);
    return {
      success: true,
      user: toPublicUser(user),
      message: 'Registration successful. You can now sign in.',
    };
  }

  async account(actorId: string): Promise<AccountView> {
    return this.users.toAccount(await this.users.get(actorId));
  }

  /** A new password; every token issued before stops working. Answers a new session. */
  async changePassword(actorId: string, change: PasswordChange): Promise<LoginResponse> {
    const user = await this.users.get(actorId);
    if (!(await this.hasher.verify(user.passwordHash, change.currentPassword)))
      throw RpcError.badRequest(ErrorText.wrongCurrentPassword, 'currentPassword');
    return this.session(await this.users.setPassword(user, change.newPassword));
  }

  /** Signs out every device; answers a new session for the one asking. */
  async revokeSessions(actorId: string): Promise<LoginResponse> {
    return this.session(await this.users.revokeSessions(actorId));
  }

  async setupTwoFactor(actorId: string): Promise<TwoFactorSetup> {
    const user = await this.users.get(actorId);
    if (user.totpEnabled) throw RpcError.conflict(ErrorText.twoFactorAlreadyOn);
    const setup = this.twoFactor.newSecret(user.username);
    await this.users.saveTwoFactor(user, { totpSecret: setup.secret, totpLastStep: null });
    return setup;
  }

  /** Turns it on once the app shows a right code; answers the recovery codes, once. */
  async enableTwoFactor(actorId: string, code: string): Promise<TwoFactorEnabled> {
    const user = await this.users.get(actorId);
    if (user.totpEnabled) throw RpcError.conflict(ErrorText.twoFactorAlreadyOn);
    if (code.includes('-')) throw RpcError.badRequest(ErrorText.invalidTwoFactorCode, 'code');
    // A wrong code here is a 400: a 401 would sign the person out of the page they are on.
    const use = this.twoFactor.verify(user, code, 'badRequest');
    const { recoveryCodes, hashes } = this.twoFactor.newRecoveryCodes();
    await this.users.saveTwoFactor(user, {
      totpEnabled: true,
      totpLastStep: 'step' in use ? use.step : null,
      recoveryCodes: hashes,
    });
    return { recoveryCodes };
  }

  async disableTwoFactor(actorId: string, code: string): Promise<AccountView> {
    const user = await this.users.get(actorId);
    if (!user.totpEnabled) throw RpcError.conflict(ErrorText.twoFactorOff);
    const use = this.twoFactor.verify(user, code, 'badRequest');
    if (!(await this.users.spendTwoFactor(user, use)))
      throw RpcError.badRequest(ErrorText.invalidTwoFactorCode, 'code');
    const saved = await this.users.saveTwoFactor(user, {
      totpEnabled: false,
      totpSecret: null,
      totpLastStep: null,
      recoveryCodes: [],
    });
    return this.users.toAccount(saved);
  }

  setRole(id: string, role: string): Promise<PublicUser> {
    return this.users.setRole(id, role);
  }

  private async session(user: User): Promise<LoginResponse> {
    const claims: Omit<TokenClaims, 'exp' | 'iat'> = {
      sub: user.id,
      username: user.username,
      role: user.role,
      sv: user.sessionVersion,
    };
    return { token: await this.jwt.signAsync(claims), username: user.username, role: user.role };
  }
}
