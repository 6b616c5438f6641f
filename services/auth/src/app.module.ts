import { Module, type DynamicModule } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServiceCoreModule } from '@blog/server-kit';
import { AdminBootstrap } from './admin-bootstrap.js';
import { AuthController } from './auth/auth.controller.js';
import { AuthService } from './auth/auth.service.js';
import { CodeLock } from './auth/code-lock.js';
import { SecretBox } from './auth/secret-box.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { AUTH_CONFIG, type AuthConfig } from './config.js';
import { TwoFactor } from './auth/two-factor.js';
import { PasswordHasher } from './users/password-hasher.js';
import { User } from './users/user.entity.js';
import { PostgresUsersRepository, UsersRepository } from './users/users.repository.js';
import { UsersService } from './users/users.service.js';
import { MIGRATIONS } from './migrations/index.js';

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
          migrationsBy: config.MIGRATIONS_BY,
          entities: [User],
          migrations: MIGRATIONS,
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
