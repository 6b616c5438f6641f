import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { Patterns, type HealthReport } from '@blog/contracts';
import { DataSource } from 'typeorm';

export const SERVICE_NAME = Symbol('SERVICE_NAME');

/** The health message every service answers: up, with the state of its database. */
@Controller()
export class HealthController {
  constructor(
    @Inject(SERVICE_NAME) private readonly service: string,
    private readonly dataSource: DataSource,
  ) {}

  @MessagePattern(Patterns.health)
  async health(): Promise<HealthReport> {
    let database: HealthReport['database'] = 'up';
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      database = 'down';
    }
    return { service: this.service, status: 'up', database };
  }
}
