import type { PostStatus, PostView } from '@blog/contracts/posts';
import { type SiteCategory, type SiteConfig } from '@blog/contracts/site';
import { newsletterOf } from '@blog/contracts/site-settings';

/** The post form's text fields (docs/product.md#the-dashboard, #the-post-form). */
export interface PostFormValues {
  title: string;
  content: string;
  /** Comma-separated, as the form shows them. */
  tags: string;
  category: string;
  submenu1: string;
  submenu2: string;
  /** YYYY-MM-DD */
  selectedDate: string;
  /** 24-hour clock; shown as 12-hour. */
  selectedTime: { hours: number; minutes: number };
  /** Published (scheduled when dated ahead) or the admin's draft. */
  status: PostStatus;
  /** E-mail it to the each-post subscribers when published; unset leaves it to the server. */
  sendByEmail?: boolean;
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function categoryOf(site: SiteConfig, name: string): SiteCategory | undefined {
  return site.categories.find((c) => sameName(c.label, name) || c.segment === name.toLowerCase());
}

/** Level-1 labels of a category (the submenu1 choices). */
export function submenu1Options(site: SiteConfig, category: string): string[] {
  return categoryOf(site, category)?.subcategories.map((s) => s.label) ?? [];
}

/** Level-2 labels under a submenu1 (empty when the tree has no level 2 there). */
export function submenu2Options(site: SiteConfig, category: string, submenu1: string): string[] {
  const sub = categoryOf(site, category)?.subcategories.find(
    (s) => sameName(s.label, submenu1) || s.segment === submenu1.toLowerCase(),
  );
  return sub?.entries.map((e) => e.label) ?? [];
}

/** docs/product.md#how-the-screens-behave: a new category resets submenu1 to its first key and submenu2 to that list's first entry. */
export function withCategory(values: PostFormValues, site: SiteConfig, category: string): PostFormValues {
  const submenu1 = submenu1Options(site, category)[0] ?? '';
  return { ...values, category, submenu1, submenu2: submenu2Options(site, category, submenu1)[0] ?? '' };
}

/** docs/product.md#how-the-screens-behave: a new submenu1 resets submenu2 to its first entry. */
export function withSubmenu1(values: PostFormValues, site: SiteConfig, submenu1: string): PostFormValues {
  return { ...values, submenu1, submenu2: submenu2Options(site, values.category, submenu1)[0] ?? '' };
}

const pad = (n: number) => String(n).padStart(2, '0');

export function dateParts(date: Date): Pick<PostFormValues, 'selectedDate' | 'selectedTime'> {
  return {
    selectedDate: `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`,
    selectedTime: { hours: date.getHours(), minutes: date.getMinutes() },
  };
}

/** A new post: the first category of the tree and its first entries, now as the date. */
export function newPostValues(site: SiteConfig, now: Date): PostFormValues {
  const blank: PostFormValues = {
    title: '',
    content: '',
    tags: '',
    category: '',
    submenu1: '',
    submenu2: '',
    ...dateParts(now),
    status: 'published',
    sendByEmail: newsletterOf(site).sendByDefault,
  };
  return withCategory(blank, site, site.categories[0]?.label ?? '');
}

/** The edit form of a saved post; a date that does not parse becomes now. */
export function postValues(post: PostView, now: Date): PostFormValues {
  const created = new Date(post.created_at);
  return {
    title: post.title,
    content: post.content ?? '',
    tags: post.tags.join(', '),
    category: post.category,
    submenu1: post.submenu1 ?? '',
    submenu2: post.submenu2 ?? '',
    ...dateParts(Number.isNaN(created.getTime()) ? now : created),
    status: post.status === 'draft' ? 'draft' : 'published',
    sendByEmail: post.sendByEmail,
  };
}

/** The post's date when it is ahead of `now` and the post is to be published: then it is scheduled. */
export function scheduledFor(values: PostFormValues, now: Date): Date | null {
  if (values.status !== 'published') return null;
  const at = new Date(localDateTime(values));
  return at.getTime() > now.getTime() ? at : null;
}

/** The `date` field: local date-time to the minute (docs/api.md). */
export function localDateTime({ selectedDate, selectedTime }: PostFormValues): string {
  return `${selectedDate}T${pad(selectedTime.hours)}:${pad(selectedTime.minutes)}`;
}

export type Period = 'AM' | 'PM';

/** 0-23 to the 12-hour display: 0 is 12 AM, 12 is 12 PM. */
export function to12Hour(hours: number): { hour: number; period: Period } {
  return { hour: hours % 12 === 0 ? 12 : hours % 12, period: hours < 12 ? 'AM' : 'PM' };
}

export function from12Hour(hour: number, period: Period): number {
  return (hour % 12) + (period === 'PM' ? 12 : 0);
}

/** Autosave runs only when title, content or tags holds something (docs/product.md#how-the-screens-behave). */
export function worthSaving(values: Pick<PostFormValues, 'title' | 'content' | 'tags'>): boolean {
  return [values.title, values.content, values.tags].some((v) => v.trim() !== '');
}
