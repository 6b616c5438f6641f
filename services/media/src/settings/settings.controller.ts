import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, settingsUpdateSchema, type RpcEnvelope } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
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
    return this.settings.update(parseOrThrow(settingsUpdateSchema, message.data));
  }
}
