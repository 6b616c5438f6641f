import { Module, type DynamicModule } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AuthController } from './auth/auth.controller.js';
import { AdminGuard, AuthGuard } from './common/auth.guard.js';
import { GATEWAY_CONFIG, type GatewayConfig } from './config.js';
import { HealthController } from './health/health.controller.js';
import { ServiceClients } from './rpc/service-clients.js';

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [JwtModule.register({ secret: config.JWT_SECRET, verifyOptions: { algorithms: ['HS256'] } })],
      controllers: [AuthController, HealthController],
      providers: [{ provide: GATEWAY_CONFIG, useValue: config }, ServiceClients, AuthGuard, AdminGuard],
    };
  }
}
