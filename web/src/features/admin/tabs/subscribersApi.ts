import type { SubscriberFrequency, SubscriberView } from '@blog/contracts/mail';
import type { SubscriberCounts, SubscriberImportReport } from '@blog/contracts/newsletter';
import type { ApiClient, Page } from '../../../api/client';

export const SUBSCRIBERS_PAGE_SIZE = 20;

/** The list's filters, as the URL keeps them (empty: all). */
export interface SubscriberFilters {
  status: '' | 'pending' | 'confirmed' | 'unsubscribed' | 'bounced';
  frequency: '' | SubscriberFrequency;
  search: string;
}

export function listSubscribers(
  api: ApiClient,
  page: number,
  filters: SubscriberFilters,
  signal?: AbortSignal,
): Promise<Page<SubscriberView>> {
  const query = new URLSearchParams({ page: String(page), limit: String(SUBSCRIBERS_PAGE_SIZE) });
  if (filters.status) query.set('status', filters.status);
  if (filters.frequency) query.set('frequency', filters.frequency);
  if (filters.search) query.set('search', filters.search);
  return api.list(`/api/admin/subscribers?${query}`, { signal });
}

export const subscriberCounts = (api: ApiClient, signal?: AbortSignal) =>
  api.request<SubscriberCounts>('/api/admin/subscribers/counts', { signal });

export const resetBounce = (api: ApiClient, id: number) =>
  api.request<SubscriberView>(`/api/admin/subscribers/${id}/reset-bounce`, { method: 'POST' });

/** Uploads the CSV under the client's own id, so `importStatus` can follow it meanwhile. */
export function importSubscribers(
  api: ApiClient,
  id: string,
  file: File,
  consented: boolean,
  frequency: SubscriberFrequency,
): Promise<SubscriberImportReport> {
  const form = new FormData();
  // The fields before the file: the server reads the file as it arrives.
  form.set('consented', String(consented));
  form.set('frequency', frequency);
  form.set('file', file);
  return api.request('/api/admin/subscribers/import', {
    method: 'POST',
    form,
    headers: { 'X-Import-Id': id },
  });
}

export const importStatus = (api: ApiClient, id: string, signal?: AbortSignal) =>
  api.request<SubscriberImportReport>(`/api/admin/subscribers/import/${id}`, { signal });
