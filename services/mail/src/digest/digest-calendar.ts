import { CronExpressionParser } from 'cron-parser';

/**
 * Digest weeks: the time from one DIGEST_CRON occurrence (in SITE_TIMEZONE) to the next. A
 * week is named by the occurrence that starts it; the scheduled run at that occurrence and
 * any run the owner starts before the next one belong to that week.
 */
export class DigestCalendar {
  constructor(
    private readonly pattern: string,
    private readonly timeZone: string,
  ) {}

  /** The latest occurrence at or before `at`. */
  weekOf(at: Date): Date {
    const expression = CronExpressionParser.parse(this.pattern, {
      tz: this.timeZone,
      currentDate: new Date(at.getTime() + 1),
    });
    return expression.prev().toDate();
  }

  /** The first occurrence after `at`. */
  nextAfter(at: Date): Date {
    const expression = CronExpressionParser.parse(this.pattern, { tz: this.timeZone, currentDate: at });
    return expression.next().toDate();
  }
}
