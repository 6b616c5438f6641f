import { Controller, Get, Header, Res } from '@nestjs/common';
import { SERVICE_NAMES } from '@blog/contracts';
import type { Response } from 'express';
import { ServiceClients, type ServiceState } from '../rpc/service-clients.js';

export interface HealthResponse {
  status: 'ok' | 'unavailable';
  transport: { kind: 'tcp' | 'nats'; state: ServiceState };
  services: Record<string, ServiceState>;
  down?: string[];
}

@Controller('api/health')
export class HealthController {
  constructor(private readonly services: ServiceClients) {}

  /** 200 when every process is up; 503 naming the ones that are not. Says which transport carries the calls. */
  @Get()
  @Header('Cache-Control', 'no-store')
  async health(@Res({ passthrough: true }) response: Response): Promise<HealthResponse> {
    const states = await Promise.all(
      SERVICE_NAMES.map(async (name) => [name, await this.services.state(name)] as const),
    );
    const services: Record<string, ServiceState> = { gateway: 'up', ...Object.fromEntries(states) };
    const down = states.filter(([, state]) => state !== 'up').map(([name]) => name);
    const transport = this.services.transportState();
    if (down.length === 0) return { status: 'ok', transport, services };
    response.status(503);
    return { status: 'unavailable', transport, services, down };
  }
}
