import { Module, type DynamicModule } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateWindows1764800000000, ServiceCoreModule } from '@blog/server-kit';
import { AdminBootstrap } from './admin-bootstrap.js';
import { AuthController } from './auth/auth.controller.js';
import { AuthService } from './auth/auth.service.js';
import { CodeLock } from './auth/code-lock.js';
import { SecretBox } from './auth/secret-box.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { AUTH_CONFIG, type AuthConfig } from './config.js';
import { CreateUsers1763800000000 } from './migrations/1763800000000-CreateUsers.js';
import { AccountSecurity1764400000000 } from './migrations/1764400000000-AccountSecurity.js';
import { LoginAttemptsToRateWindows1764850000000 } from './migrations/1764850000000-LoginAttemptsToRateWindows.js';
import { TwoFactor } from './auth/two-factor.js';
import { PasswordHasher } from './users/password-hasher.js';
import { User } from './users/user.entity.js';
import { PostgresUsersRepository, UsersRepository } from './users/users.repository.js';
import { UsersService } from './users/users.service.js';

@Module({})
export class AuthModule {
  static forRoot(config: AuthConfig): DynamicModule {
    return {
      module: AuthModule,
      imports: [
        ServiceCoreModule.forRoot({
          name: 'auth',
          transport: config.TRANSPORT,
          url: config.DATABASE_URL,
          entities: [User],
          migrations: [
            CreateUsers1763800000000,
            AccountSecurity1764400000000,
            RateWindows1764800000000,
            LoginAttemptsToRateWindows1764850000000,
          ],
        }),
        TypeOrmModule.forFeature([User]),
        JwtModule.register({
          secret: config.JWT_SECRET,
          signOptions: { algorithm: 'HS256', expiresIn: config.JWT_TTL },
        }),
      ],
      controllers: [AuthController],
      providers: [
        { provide: AUTH_CONFIG, useValue: config },
        AuthService,
        { provide: UsersRepository, useClass: PostgresUsersRepository },
        UsersService,
        PasswordHasher,
        LoginThrottle,
        TwoFactor,
        SecretBox,
        CodeLock,
        AdminBootstrap,
      ],
    };
  }
}
