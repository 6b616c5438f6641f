import { Injectable } from '@nestjs/common';
import { MailText, maskEmail, type PreferencesUpdate, type PreferencesView } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { hashToken } from '../common/link-tokens.js';
import { PreferencesRepository, type PreferencesRow } from './preferences.repository.js';

const toView = (row: PreferencesRow): PreferencesView => ({
  email: maskEmail(row.email),
  status: row.status,
  frequency: row.frequency,
});

/**
 * The preferences page behind a newsletter's or digest's link: the token is the only
 * credential (no account), so the page shows the address masked and changes only how often
 * mail comes, or unsubscribes.
 */
@Injectable()
export class PreferencesService {
  constructor(private readonly store: PreferencesRepository) {}

  async get(token: string): Promise<PreferencesView> {
    const row = await this.store.find(hashToken(token));
    if (!row) throw RpcError.notFound(MailText.invalidLink);
    return toView(row);
  }

  async update(update: PreferencesUpdate): Promise<PreferencesView> {
    const hash = hashToken(update.token);
    let row: PreferencesRow | undefined;
    if (update.unsubscribe) row = await this.store.unsubscribe(hash);
    else if (update.frequency) row = await this.store.setFrequency(hash, update.frequency);
    else row = await this.store.find(hash);
    if (!row) throw RpcError.notFound(MailText.invalidLink);
    return toView(row);
  }
}
