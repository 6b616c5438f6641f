import type { PostView } from '@blog/contracts/posts';
import { type SiteConfig } from '@blog/contracts/site';
import { newsletterOf } from '@blog/contracts/site-settings';
import { draftMedia, loadDraft, type CropSettings } from './draft';
import { mainImage, mediaFromPost, type FormMedia } from './formMedia';
import { newPostValues, postValues, type PostFormValues } from './postForm';

let keySeq = 0;
/** Keys for items the form adds (saved items keep their ids). */
/**
 * A key unique across page loads: the text refers to new items by it (`media:new-…`), and a
 * draft restored after a reload must not point at a file picked later.
 */
export const newMediaKey = () => `new-${Date.now().toString(36)}${(++keySeq).toString(36)}`;

export interface FormStart {
  values: PostFormValues;
  media: FormMedia[];
  crop: CropSettings | null;
  /** Set when a local draft was restored. */
  restored: { timestamp: number; fileCount: number } | null;
}

/** What the form opens with: the post, else a draft younger than 24 hours (docs/product.md#how-the-screens-behave), else a blank post. */
export function formStart(
  post: PostView | undefined,
  site: SiteConfig,
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>,
  now: Date,
): FormStart {
  if (post) {
    const media = mediaFromPost(post.media);
    const main = mainImage(media);
    const item = main?.source === 'saved' ? main.item : null;
    const crop =
      item && item.cropScale != null
        ? { x: item.cropX ?? 0, y: item.cropY ?? 0, scale: item.cropScale }
        : null;
    return { values: postValues(post, now), media, crop, restored: null };
  }
  const draft = loadDraft(storage, now.getTime());
  if (!draft) return { values: newPostValues(site, now), media: [], crop: null, restored: null };
  const { cropSettings, fileCount, timestamp, youtubeVideos: _videos, ...values } = draft;
  return {
    // A draft saved before posts had a status is a post to publish.
    // One saved before the e-mail option takes the Site setting, as a new post does.
    values: {
      ...values,
      status: values.status ?? 'published',
      sendByEmail: values.sendByEmail ?? newsletterOf(site).sendByDefault,
    },
    media: draftMedia(draft, newMediaKey),
    crop: cropSettings,
    restored: { timestamp, fileCount },
  };
}
