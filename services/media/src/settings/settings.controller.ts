import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { idempotencyRequestSchema, Patterns, settingsUpdateSchema, type RpcEnvelope } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { SettingsService } from './settings.service.js';

const settingsWrite = settingsUpdateSchema.extend({ idempotency: idempotencyRequestSchema.optional() });

@Controller()
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @MessagePattern(Patterns.media.getSettings)
  get() {
    return this.settings.get();
  }

  @MessagePattern(Patterns.media.updateSettings)
  update(@Payload() message: RpcEnvelope<unknown>) {
    const { idempotency, ...update } = parseOrThrow(settingsWrite, message.data);
    return this.settings.update(update, idempotency);
  }
}
