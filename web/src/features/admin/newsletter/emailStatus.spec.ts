import type { NewsletterStatus } from '@blog/contracts/newsletter';
import type { PostView } from '@blog/contracts/posts';
import type { SiteConfig } from '@blog/contracts/site';
import { formStart } from '../lib/formStart';
import { newPostValues, postValues } from '../lib/postForm';
import { postFormData } from '../lib/postPayload';
import { emailProgress, emailStatusText, emailTaken } from './emailStatus';

const status = (more: Partial<NewsletterStatus>): NewsletterStatus => ({
  status: 'none',
  total: 0,
  sent: 0,
  failed: 0,
  bounced: 0,
  startedAt: null,
  finishedAt: null,
  ...more,
});
const when = (iso: string) => `[${iso}]`;

const site = {
  categories: [
    {
      label: 'Garage',
      segment: 'garage',
      subcategories: [{ label: 'Automobiles', segment: 'automobiles', general: false, entries: [] }],
    },
  ],
} as unknown as SiteConfig;
const memory = () => {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
};

describe('a post’s e-mail in the dashboard', () => {
  it('the box is locked once the send began; only then', () => {
    expect(emailTaken(null)).toBe(false);
    expect(emailTaken(status({ status: 'none' }))).toBe(false);
    expect(emailTaken(status({ status: 'scheduled' }))).toBe(false);
    for (const taken of ['sending', 'sent', 'stopped'] as const)
      expect(emailTaken(status({ status: taken }))).toBe(true);
  });

  it('says how the send stands, with its progress', () => {
    const sending = status({ status: 'sending', total: 200, sent: 40, failed: 1, bounced: 1 });
    expect(emailProgress(sending)).toEqual({ done: 42, total: 200 });
    expect(emailStatusText(sending, when)).toBe(
      'Sending by e-mail: 42 of 200 subscribers, 2 addresses failed.',
    );
    expect(emailStatusText(status({ status: 'sent', total: 1, sent: 1, finishedAt: 'T' }), when)).toBe(
      'Sent by e-mail to 1 subscriber on [T].',
    );
    expect(emailStatusText(status({ status: 'stopped', total: 10, sent: 3 }), when)).toBe(
      'E-mail stopped: the post was unpublished after 3 of 10 subscribers.',
    );
    expect(emailStatusText(status({ status: 'scheduled' }), when)).toMatch(/^E-mail scheduled/);
  });

  it('a new post starts from the Site setting, an edited one from the post; the form sends the field', () => {
    const now = new Date('2026-01-01T10:00:00');
    expect(newPostValues(site, now).sendByEmail).toBe(false);
    const on = { ...site, newsletter: { sendByDefault: true } };
    expect(newPostValues(on, now).sendByEmail).toBe(true);
    expect(formStart(undefined, on, memory(), now).values.sendByEmail).toBe(true);

    const post = {
      title: 'T',
      tags: [],
      category: 'Garage',
      submenu1: 'Automobiles',
      created_at: now.toISOString(),
      status: 'published',
      sendByEmail: false,
    } as unknown as PostView;
    expect(postValues(post, now).sendByEmail).toBe(false);

    const form = (sendByEmail: boolean | undefined) =>
      postFormData({ ...newPostValues(site, now), title: 'T', sendByEmail }, [], null).get('sendByEmail');
    expect(form(true)).toBe('true');
    expect(form(false)).toBe('false');
    // A post read without the field (an older server) leaves it to the server: the post keeps its own.
    expect(form(undefined)).toBeNull();
  });
});
