import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  SETTINGS_DEFAULTS,
  type IdempotencyRequest,
  type IdempotentAnswer,
  type ImageSettings,
  type SettingsUpdate,
} from '@blog/contracts';
import { IdempotencyLedger } from '@blog/server-kit';
import { DataSource, type EntityManager } from 'typeorm';
import { SettingsRow } from './settings.entity.js';

const toSettings = (row: SettingsRow): ImageSettings => ({
  image_max_size: row.imageMaxSize,
  image_quality: row.imageQuality,
  image_auto_optimize: row.imageAutoOptimize,
});

/** The admin's image settings, one row; every job reads them when it starts. */
@Injectable()
export class SettingsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly ledger: IdempotencyLedger,
  ) {}

  get(manager: EntityManager = this.db.manager): Promise<ImageSettings> {
    return manager
      .getRepository(SettingsRow)
      .findOneBy({ id: 1 })
      .then((row) => (row ? toSettings(row) : { ...SETTINGS_DEFAULTS }));
  }

  update(
    { settings }: SettingsUpdate,
    idempotency?: IdempotencyRequest,
  ): Promise<IdempotentAnswer<ImageSettings>> {
    return this.ledger.write(idempotency, async (manager) => {
      const next = { ...(await this.get(manager)), ...settings };
      await manager.getRepository(SettingsRow).upsert(
        {
          id: 1,
          imageMaxSize: next.image_max_size,
          imageQuality: next.image_quality,
          imageAutoOptimize: next.image_auto_optimize,
          updatedAt: new Date(),
        },
        ['id'],
      );
      return this.get(manager);
    });
  }
}
