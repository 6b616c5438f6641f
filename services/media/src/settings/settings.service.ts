import { Injectable } from '@nestjs/common';
import {
  SETTINGS_DEFAULTS,
  type IdempotencyRequest,
  type IdempotentAnswer,
  type ImageSettings,
  type SettingsUpdate,
} from '@blog/contracts';
import { IdempotencyLedger } from '@blog/server-kit';
import { SettingsRepository } from './settings.repository.js';

/** The admin's image settings, one row; every job reads them when it starts. */
@Injectable()
export class SettingsService {
  constructor(
    private readonly store: SettingsRepository,
    private readonly ledger: IdempotencyLedger,
  ) {}

  /** The stored settings, or the defaults before the admin changed any. */
  async get(): Promise<ImageSettings> {
    return (await this.store.load()) ?? { ...SETTINGS_DEFAULTS };
  }

  /** Changes the fields `settings` names; the others keep their stored (or default) values. */
  update(
    { settings }: SettingsUpdate,
    idempotency?: IdempotencyRequest,
  ): Promise<IdempotentAnswer<ImageSettings>> {
    return this.ledger.write(idempotency, async (manager) => {
      const next = { ...((await this.store.load(manager)) ?? SETTINGS_DEFAULTS), ...settings };
      await this.store.save(next, manager);
      return (await this.store.load(manager)) ?? next;
    });
  }
}
