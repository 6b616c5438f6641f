import { Controller, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { healthPattern, type HealthReport, type ServiceName } from '@blog/contracts';
import { DataSource } from 'typeorm';

/** The health message of one service: up, with the state of its database and its transport. */
export function healthController(service: ServiceName, transport: HealthReport['transport']): Type<unknown> {
  @Controller()
  class HealthController {
    constructor(private readonly dataSource: DataSource) {}

    @MessagePattern(healthPattern(service))
    async health(): Promise<HealthReport> {
      let database: HealthReport['database'] = 'up';
      try {
        await this.dataSource.query('SELECT 1');
      } catch {
        database = 'down';
      }
      return { service, status: 'up', database, transport };
    }
  }
  return HealthController;
}
