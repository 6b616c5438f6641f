import type { CropSettings } from './draft';
import { mainImage, mediaPayload, type FormMedia } from './formMedia';
import { localDateTime, type PostFormValues } from './postForm';

/** The multipart form of docs/api.md; the media order travels as unifiedMedia, new files by index. */
export function postFormData(
  values: PostFormValues,
  media: FormMedia[],
  crop: CropSettings | null,
): FormData {
  const { unifiedMedia, files } = mediaPayload(media);
  const form = new FormData();
  form.set('title', values.title.trim());
  form.set('content', values.content);
  form.set('date', localDateTime(values));
  form.set('category', values.category);
  form.set('submenu1', values.submenu1);
  form.set('submenu2', values.submenu2);
  form.set('tags', values.tags);
  form.set('status', values.status ?? 'published');
  if (values.sendByEmail !== undefined) form.set('sendByEmail', values.sendByEmail ? 'true' : 'false');
  // The server applies the crop to the first image: sent only when there is one.
  if (crop && mainImage(media)) form.set('cropSettings', JSON.stringify(crop));
  form.set('unifiedMedia', JSON.stringify(unifiedMedia));
  for (const file of files) form.append('files', file, file.name);
  return form;
}
