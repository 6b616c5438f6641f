import type { SubscriberFrequency } from '@blog/contracts/mail';
import type { ApiClient } from './client';

export interface ContactMessage {
  name: string;
  email: string;
  subject: string;
  message: string;
  /** The hidden honeypot field: a person leaves it empty. */
  website?: string;
}

export function sendContact(api: ApiClient, message: ContactMessage): Promise<unknown> {
  return api.request('/api/contact', { method: 'POST', body: message });
}

export type { SubscriberFrequency };

export function subscribe(
  api: ApiClient,
  email: string,
  frequency: SubscriberFrequency = 'weekly',
): Promise<unknown> {
  return api.request('/api/subscribe', { method: 'POST', body: { email, frequency } });
}
