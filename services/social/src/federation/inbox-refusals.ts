import type { JsonLogger } from '@blog/server-kit';

/**
 * Inbox POSTs the gate refused: each at debug, and one line a minute with the counts by reason.
 * A stranger's junk must not write a line per request (a probe of 1,200 POSTs wrote 1,200).
 */
export class InboxRefusalLog {
  private readonly counts = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly logger: JsonLogger,
    private readonly intervalMs = 60_000,
  ) {}

  refused(reason: string): void {
    this.logger.event('debug', 'federation inbox POST refused', { reason });
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs).unref();
  }

  /** Writes the counts so far (at shutdown too), if any. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.counts.size === 0) return;
    const byReason = Object.fromEntries(this.counts);
    this.counts.clear();
    this.logger.event('info', 'federation inbox POSTs refused', {
      byReason,
      seconds: this.intervalMs / 1000,
    });
  }
}
