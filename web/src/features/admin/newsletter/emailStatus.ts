import type { NewsletterStatus } from '@blog/contracts/newsletter';

/** How often a send in progress is asked again. */
export const EMAIL_POLL_MS = 3000;

/** Whether the post's e-mail went out, or began to: the box can no longer change anything. */
export const emailTaken = (status: NewsletterStatus | null) =>
  !!status && (status.status === 'sending' || status.status === 'sent' || status.status === 'stopped');

/** Subscribers done so far (sent, failed or bounced) out of those the send took. */
export function emailProgress(status: NewsletterStatus): { done: number; total: number } {
  const done = Math.min(status.total, status.sent + status.failed + status.bounced);
  return { done, total: status.total };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line for the status, as the form and the posts list say it. */
export function emailStatusText(status: NewsletterStatus, when: (iso: string) => string): string {
  const { done, total } = emailProgress(status);
  const problems = status.failed + status.bounced;
  const failedPart = problems > 0 ? `, ${plural(problems, 'address', 'addresses')} failed` : '';
  switch (status.status) {
    case 'none':
      return 'Not sent by e-mail.';
    case 'scheduled':
      return 'E-mail scheduled: sent when the post is published.';
    case 'sending':
      return `Sending by e-mail: ${done} of ${plural(total, 'subscriber')}${failedPart}.`;
    case 'sent':
      return `Sent by e-mail to ${plural(status.sent, 'subscriber')}${failedPart}${
        status.finishedAt ? ` on ${when(status.finishedAt)}` : ''
      }.`;
    case 'stopped':
      return `E-mail stopped: the post was unpublished after ${done} of ${plural(total, 'subscriber')}.`;
  }
}
