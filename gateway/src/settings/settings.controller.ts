import { Body, Controller, Get, HttpCode, Put, Req, Res } from '@nestjs/common';
import { Patterns, settingsUpdateSchema, type ImageSettings, type SettingsUpdate } from '@blog/contracts';
import type { Request, Response } from 'express';
import { idempotencyOf, sendAnswer } from '../common/idempotency.js';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';

/** The admin's image settings (docs/product.md#the-dashboard, docs/api.md), stored by the media service. */
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
  async update(
    @Body(new ZodPipe(settingsUpdateSchema)) body: SettingsUpdate,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ImageSettings> {
    const idempotency = idempotencyOf(req, 'PUT /api/settings', body);
    return sendAnswer(
      res,
      await this.services.call('media', Patterns.media.updateSettings, {
        ...body,
        idempotency,
      }),
    );
  }
}
