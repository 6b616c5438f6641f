/** What a failed SMTP send means for the one recipient. */
export type SmtpFailure =
  /** 5xx to RCPT TO: the address is refused for good (counts toward marking it bounced). */
  | 'rejected'
  /** Another 5xx (the message refused for good): not tried again. */
  | 'permanent'
  /** 4xx (421 included), a timeout, a dropped or refused connection: tried again after a wait. */
  | 'temporary';

interface SmtpError {
  responseCode?: number;
  command?: string;
  code?: string;
}

export function smtpFailure(error: unknown): SmtpFailure {
  const { responseCode, command } = (error ?? {}) as SmtpError;
  if (typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600) {
    return command === 'RCPT TO' ? 'rejected' : 'permanent';
  }
  return 'temporary';
}

/**
 * Spaces the messages one process hands to SMTP evenly at `perMinute` (0: no limit): each
 * `wait` resolves at the next free slot, so a minute never sees more than the rate (plus one).
 */
export class Pace {
  private next = 0;

  constructor(private readonly perMinute: number) {}

  async wait(): Promise<void> {
    if (!this.perMinute) return;
    const gap = 60_000 / this.perMinute;
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + gap;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }
}
