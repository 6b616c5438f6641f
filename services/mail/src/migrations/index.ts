import { CreateMail1763900000000 } from './1763900000000-CreateMail.js';
import { RateWindows1764800000000 } from '@blog/server-kit';
import { FormLimitsToRateWindows1764860000000 } from './1764860000000-FormLimitsToRateWindows.js';
import { SubscriberPreferences1764900000000 } from './1764900000000-SubscriberPreferences.js';
import { NewsletterSends1764950000000 } from './1764950000000-NewsletterSends.js';

/** The mail schema's migrations in the order they run: the service at start, a restore up to a backup's. */
export const MIGRATIONS = [
  CreateMail1763900000000,
  RateWindows1764800000000,
  FormLimitsToRateWindows1764860000000,
  SubscriberPreferences1764900000000,
  NewsletterSends1764950000000,
];
