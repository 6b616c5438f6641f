import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import {
  ErrorText,
  type LoginCommand,
  type LoginResponse,
  type RegisterRequest,
  type RegisterResponse,
  type TokenClaims,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { PasswordHasher } from '../users/password-hasher.js';
import { UsersService, toPublicUser } from '../users/users.service.js';
import { LoginThrottle } from './login-throttle.service.js';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly jwt: JwtService,
  ) {}

  /** One answer for an unknown user and a wrong password, in the same time. */
  async login({ username, password, ip }: LoginCommand): Promise<LoginResponse> {
    const key = LoginThrottle.key(ip, username);
    await this.throttle.admit(key);
    const user = await this.users.findByUsername(username);
    const valid = user
      ? await this.hasher.verify(user.passwordHash, password)
      : await this.hasher.verifyAgainstNothing(password);
    if (!user || !valid) throw RpcError.unauthorized(ErrorText.invalidCredentials);
    await this.throttle.reset(key);
    const claims: Omit<TokenClaims, 'exp' | 'iat'> = {
      sub: user.id,
      username: user.username,
      role: user.role,
    };
    return { token: await this.jwt.signAsync(claims), username: user.username, role: user.role };
  }

  async register({ username, password }: RegisterRequest): Promise<RegisterResponse> {
    const user = await this.users.create(username, password);
    return {
      success: true,
      user: toPublicUser(user),
      message: 'Registration successful. You can now sign in.',
    };
  }
}
