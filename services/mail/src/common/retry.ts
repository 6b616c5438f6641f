import type { MailConfig } from '../config.js';

/**
 * The wait before try `attempt + 1` of an e-mail: MAIL_RETRY_INTERVAL_MS, doubling with each
 * failed try, at most MAIL_RETRY_MAX_DELAY.
 */
export function retryDelayMs(config: MailConfig, attempt: number): number {
  const base = config.MAIL_RETRY_INTERVAL_MS;
  return Math.min(config.MAIL_RETRY_MAX_DELAY * 1000, base * 2 ** Math.max(0, Math.min(attempt - 1, 20)));
}

/** How long a sender owns a message it took: longer than any SMTP exchange can last. */
export const SEND_LEASE_MS = 5 * 60_000;

/** An error as one short line for the database and the logs. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').slice(0, 500);
}
