import { Inject, Injectable } from '@nestjs/common';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { newLinkToken } from '../common/link-tokens.js';
import { PreferencesRepository } from './preferences.repository.js';

/**
 * Links to a subscriber's preferences page (`{SITE_URL}/api/preferences?token=…`), for the
 * footer of every newsletter and digest. Each link has a fresh token of its own purpose
 * (32 random bytes; only its SHA-256 is stored); it does not expire.
 */
@Injectable()
export class PreferencesLinks {
  constructor(
    private readonly store: PreferencesRepository,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
  ) {}

  /** The preferences link without its token. */
  get base(): string {
    return `${this.config.SITE_URL}/api/preferences?token=`;
  }

  async preferencesUrl(subscriberId: number): Promise<string> {
    const [url] = await this.preferencesUrls([subscriberId]);
    return url!;
  }

  /** One link per subscriber, in order, stored in one statement (a batch of e-mails). */
  async preferencesUrls(subscriberIds: number[]): Promise<string[]> {
    return (await this.preferencesTokens(subscriberIds)).map((token) => `${this.base}${token}`);
  }

  /** The bare tokens, for e-mails that place them in a link themselves. */
  async preferencesTokens(subscriberIds: number[]): Promise<string[]> {
    if (!subscriberIds.length) return [];
    const tokens = subscriberIds.map(() => newLinkToken());
    await this.store.addTokens(
      subscriberIds,
      tokens.map((t) => t.hash),
    );
    return tokens.map((t) => t.token);
  }
}
