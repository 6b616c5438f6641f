import { DRAFT_KEY, DRAFT_LIFETIME_MS, SUBMISSION_KEY } from '@blog/contracts/admin';
import type { FormMedia } from './formMedia';
import type { PostFormValues } from './postForm';
import type { Submission } from './submission';

export interface CropSettings {
  x: number;
  y: number;
  scale: number;
}

type YoutubeEntry = Extract<FormMedia, { source: 'youtube' }>;

/** The new-post draft in localStorage (docs/product.md#the-post-form); files never go in it. */
export interface Draft extends PostFormValues {
  cropSettings: CropSettings | null;
  /** `key` is how the text refers to the link (`media:KEY`), kept so a restored draft still places it. */
  youtubeVideos: { url: string; title: string; thumbnailUrl: string; key?: string }[];
  /** How many files the form held: they cannot be kept, and the restored form says so. */
  fileCount: number;
  timestamp: number;
}

type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function makeDraft(
  values: PostFormValues,
  media: FormMedia[],
  cropSettings: CropSettings | null,
  now: number,
): Draft {
  return {
    ...values,
    cropSettings,
    youtubeVideos: media
      .filter((m): m is YoutubeEntry => m.source === 'youtube')
      .map(({ url, title, thumbnailUrl, key }) => ({ url, title, thumbnailUrl, key })),
    fileCount: media.filter((m) => m.source !== 'youtube').length,
    timestamp: now,
  };
}

/** Throws when storage refuses (full, disabled): the indicator then says 'Save failed'. */
export function saveDraft(storage: DraftStorage, draft: Draft): void {
  storage.setItem(DRAFT_KEY, JSON.stringify(draft));
}

/** The draft if younger than 24 hours; an older or unreadable one is removed. */
export function loadDraft(storage: DraftStorage, now: number): Draft | null {
  const text = storage.getItem(DRAFT_KEY);
  if (!text) return null;
  let draft: Draft | null = null;
  try {
    const parsed = JSON.parse(text) as Partial<Draft>;
    if (typeof parsed.timestamp === 'number' && typeof parsed.title === 'string') draft = parsed as Draft;
  } catch {
    draft = null;
  }
  if (!draft || now - draft.timestamp >= DRAFT_LIFETIME_MS || draft.timestamp > now) {
    storage.removeItem(DRAFT_KEY);
    return null;
  }
  return draft;
}

export function clearDraft(storage: DraftStorage): void {
  storage.removeItem(DRAFT_KEY);
  storage.removeItem(SUBMISSION_KEY);
}

/** Kept beside the draft (autosave rewrites the draft, not this), for as long as a draft lives. */
export function saveSubmission(storage: DraftStorage, submission: Submission): void {
  storage.setItem(SUBMISSION_KEY, JSON.stringify(submission));
}

export function clearSubmission(storage: DraftStorage): void {
  storage.removeItem(SUBMISSION_KEY);
}

/** The new post's last unanswered submission, if younger than a draft may be. */
export function loadSubmission(storage: DraftStorage, now: number): Submission | null {
  try {
    const parsed = JSON.parse(storage.getItem(SUBMISSION_KEY) ?? 'null') as Partial<Submission> | null;
    if (
      parsed &&
      typeof parsed.key === 'string' &&
      typeof parsed.signature === 'string' &&
      typeof parsed.timestamp === 'number' &&
      now - parsed.timestamp < DRAFT_LIFETIME_MS &&
      parsed.timestamp <= now
    )
      return parsed as Submission;
  } catch {
    // unreadable: treated as none
  }
  storage.removeItem(SUBMISSION_KEY);
  return null;
}

/** The restored form's YouTube entries, with the keys the text refers to them by (new ones for older drafts). */
export function draftMedia(draft: Draft, key: (i: number) => string): FormMedia[] {
  return (draft.youtubeVideos ?? []).map(({ key: saved, ...v }, order) => ({
    key: saved ?? key(order),
    source: 'youtube',
    type: 'youtube',
    order,
    ...v,
  }));
}
