import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { SettingsService } from './settings.service.js';

@Controller()
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @MessagePattern(Patterns.media.getSettings)
  get() {
    return this.settings.get();
  }

  @MessagePattern(Patterns.media.updateSettings)
  update(@Payload() message: RpcEnvelope<unknown>) {
    const { idempotency, ...update } = parseRequest(Patterns.media.updateSettings, message);
    return this.settings.update(update, idempotency);
  }
}
