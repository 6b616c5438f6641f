import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SETTINGS_DEFAULTS, type ImageSettings, type SettingsUpdate } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { SettingsRow } from './settings.entity.js';

const toSettings = (row: SettingsRow): ImageSettings => ({
  image_max_size: row.imageMaxSize,
  image_quality: row.imageQuality,
  image_auto_optimize: row.imageAutoOptimize,
});

/** The admin's image settings, one row; every job reads them when it starts. */
@Injectable()
export class SettingsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async get(): Promise<ImageSettings> {
    const row = await this.db.getRepository(SettingsRow).findOneBy({ id: 1 });
    return row ? toSettings(row) : { ...SETTINGS_DEFAULTS };
  }

  async update({ settings }: SettingsUpdate): Promise<ImageSettings> {
    const next = { ...(await this.get()), ...settings };
    await this.db.getRepository(SettingsRow).upsert(
      {
        id: 1,
        imageMaxSize: next.image_max_size,
        imageQuality: next.image_quality,
        imageAutoOptimize: next.image_auto_optimize,
        updatedAt: new Date(),
      },
      ['id'],
    );
    return this.get();
  }
}
