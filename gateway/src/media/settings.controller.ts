import { Body, Controller, Get, HttpCode, Put } from '@nestjs/common';
import { Patterns, settingsUpdateSchema, type ImageSettings, type SettingsUpdate } from '@blog/contracts';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';

/** The admin's image settings (SPEC.md §2 Settings tab, §7), stored by the media service. */
@Controller('api/settings')
export class SettingsController {
  constructor(private readonly services: ServiceClients) {}

  @Get()
  @AdminOnly()
  get(): Promise<ImageSettings> {
    return this.services.read('media', Patterns.media.getSettings, {});
  }

  @Put()
  @HttpCode(200)
  @AdminOnly()
  update(@Body(new ZodPipe(settingsUpdateSchema)) body: SettingsUpdate): Promise<ImageSettings> {
    return this.services.call('media', Patterns.media.updateSettings, body);
  }
}
