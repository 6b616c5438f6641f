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

export function subscribe(api: ApiClient, email: string): Promise<unknown> {
  return api.request('/api/subscribe', { method: 'POST', body: { email } });
}
