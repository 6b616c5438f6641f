import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ImageSettings } from '@blog/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { SettingsRow } from './settings.entity.js';

/** media.settings: the admin's image settings, one row (id 1), absent until the first change. */
export abstract class SettingsRepository {
  /** The stored settings, or null before the first change; on `manager`'s transaction when given. */
  abstract load(manager?: EntityManager): Promise<ImageSettings | null>;
  /** Stores `settings` as the one row, on the transaction `manager` (from IdempotencyLedger.write). */
  abstract save(settings: ImageSettings, manager: EntityManager): Promise<void>;
}

@Injectable()
export class PostgresSettingsRepository extends SettingsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async load(manager: EntityManager = this.db.manager): Promise<ImageSettings | null> {
    const row = await manager.getRepository(SettingsRow).findOneBy({ id: 1 });
    return row
      ? {
          image_max_size: row.imageMaxSize,
          image_quality: row.imageQuality,
          image_auto_optimize: row.imageAutoOptimize,
        }
      : null;
  }

  async save(settings: ImageSettings, manager: EntityManager): Promise<void> {
    await manager.getRepository(SettingsRow).upsert(
      {
        id: 1,
        imageMaxSize: settings.image_max_size,
        imageQuality: settings.image_quality,
        imageAutoOptimize: settings.image_auto_optimize,
        updatedAt: new Date(),
      },
      ['id'],
    );
  }
}
