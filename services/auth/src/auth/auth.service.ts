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
  type TwoFactorConfirm,
  type TwoFactorDisabled,
  type TwoFactorEnabled,
  type TwoFactorSetup,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { PasswordHasher } from '../users/password-hasher.js';
import type { User } from '../users/user.entity.js';
import { UsersService, toPublicUser } from '../users/users.service.js';
import { CodeLock } from './code-lock.js';
import { LoginThrottle } from './login-throttle.js';
import { TwoFactor, type TwoFactorUse } from './two-factor.js';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly twoFactor: TwoFactor,
    private readonly codeLock: CodeLock,
    private readonly jwt: JwtService,
  ) {}

  /**
   * One answer for an unknown user and a wrong password, in the same time. With two-factor
   * sign-in on, a right password without a right code is refused too, and every such try
   * counts towards the same limit as a wrong password (the count is cleared only on success),
   * and towards the account's own limit on codes (CodeLock), whatever the address.
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
      await this.codeLock.admit(user.id);
      const use = await this.twoFactor.verify(user, code);
      if (!(await this.users.spendTwoFactor(user, use)))
        throw RpcError.unauthorized(ErrorText.invalidTwoFactorCode);
      await this.codeLock.clear(user.id);
    }
    await this.throttle.reset(key);
    await this.users.refreshPasswordHash(user, password);
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
    return this.view(await this.users.get(actorId));
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
    const { setup, stored } = this.twoFactor.newSecret(user);
    await this.users.saveTwoFactor(user, { totpSecret: stored, totpLastStep: null });
    return setup;
  }

  /** Turns it on once the app shows a right code; answers the recovery codes, once. */
  async enableTwoFactor(actorId: string, confirm: TwoFactorConfirm): Promise<TwoFactorEnabled> {
    const user = await this.users.get(actorId);
    if (user.totpEnabled) throw RpcError.conflict(ErrorText.twoFactorAlreadyOn);
    if (!user.totpSecret) throw RpcError.badRequest(ErrorText.twoFactorNotSetUp);
    if (confirm.code.includes('-')) throw RpcError.badRequest(ErrorText.invalidTwoFactorCode, 'code');
    const use = await this.confirm(user, confirm);
    const { recoveryCodes, hashes } = await this.twoFactor.newRecoveryCodes();
    await this.users.saveTwoFactor(user, {
      totpEnabled: true,
      totpLastStep: 'step' in use ? use.step : null,
      recoveryCodes: hashes,
    });
    return { recoveryCodes };
  }

  /** Turns it off and signs out every other session; answers a new session for the one asking. */
  async disableTwoFactor(actorId: string, confirm: TwoFactorConfirm): Promise<TwoFactorDisabled> {
    const user = await this.users.get(actorId);
    if (!user.totpEnabled) throw RpcError.conflict(ErrorText.twoFactorOff);
    await this.spend(user, await this.confirm(user, confirm));
    const saved = await this.users.saveTwoFactor(user, {
      totpEnabled: false,
      totpSecret: null,
      totpLastStep: null,
      recoveryCodes: [],
      sessionVersion: user.sessionVersion + 1,
    });
    return { ...(await this.view(saved)), token: (await this.session(saved)).token };
  }

  /** Ten new recovery codes in place of the old ones (all of which stop working); shown once. */
  async newRecoveryCodes(actorId: string, confirm: TwoFactorConfirm): Promise<TwoFactorEnabled> {
    const user = await this.users.get(actorId);
    if (!user.totpEnabled) throw RpcError.conflict(ErrorText.twoFactorOff);
    await this.spend(user, await this.confirm(user, confirm));
    const { recoveryCodes, hashes } = await this.twoFactor.newRecoveryCodes();
    await this.users.saveTwoFactor(user, { recoveryCodes: hashes });
    return { recoveryCodes };
  }

  /**
   * The account's own two-factor changes: counted by the code limit first (a wrong password
   * counts too), then the current password, then the code. Wrong ones are 400: a 401 would
   * sign the person out of the page they are on.
   */
  private async confirm(user: User, { password, code }: TwoFactorConfirm): Promise<TwoFactorUse> {
    await this.codeLock.admit(user.id);
    if (!(await this.hasher.verify(user.passwordHash, password)))
      throw RpcError.badRequest(ErrorText.wrongCurrentPassword, 'password');
    const use = await this.twoFactor.verify(user, code, 'badRequest');
    await this.codeLock.clear(user.id);
    return use;
  }

  private async spend(user: User, use: TwoFactorUse): Promise<void> {
    if (!(await this.users.spendTwoFactor(user, use)))
      throw RpcError.badRequest(ErrorText.invalidTwoFactorCode, 'code');
    // The stored row moved on (step or codes); keep the entity in step before saving it.
    if ('step' in use) user.totpLastStep = use.step;
    else user.recoveryCodes = user.recoveryCodes.filter((kept) => kept !== use.recoveryHash);
  }

  private async view(user: User): Promise<AccountView> {
    return { ...this.users.toAccount(user), codeLockedUntil: await this.codeLock.lockedUntil(user.id) };
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
