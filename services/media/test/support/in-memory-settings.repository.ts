import type { ImageSettings } from '@blog/contracts';
import { SettingsRepository } from '../../src/settings/settings.repository.js';

/** The image settings' row in memory, for fast tests of their rules (the Postgres one runs in the HTTP tests). */
export class InMemorySettingsRepository extends SettingsRepository {
  row: ImageSettings | null = null;

  async load(): Promise<ImageSettings | null> {
    return this.row ? { ...this.row } : null;
  }

  async save(settings: ImageSettings): Promise<void> {
    this.row = { ...settings };
  }
}
