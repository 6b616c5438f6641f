import { AdminText, FILE_READ_TIMEOUT_MS } from '@blog/contracts/admin';
import { FileErrors, isHeic, isImageOrVideo, MAX_FILE_BYTES } from '@blog/contracts/media';

export interface FileCheck<F> {
  accepted: F[];
  /** One line per refused file (type, size), in pick order. */
  errors: string[];
  /** The HEIC/HEIF line (singular or plural, with the suffix when others passed), else null. */
  heicMessage: string | null;
}

/** Every browser-side check of docs/product.md#limits-and-timings before an upload, with its exact message. */
export function checkFiles<F extends { name: string; type: string; size: number }>(files: F[]): FileCheck<F> {
  const accepted: F[] = [];
  const errors: string[] = [];
  const heic: string[] = [];
  for (const file of files) {
    if (isHeic(file.name, file.type)) heic.push(file.name);
    else if (!isImageOrVideo(file.type)) errors.push(FileErrors.unsupported(file.name));
    else if (file.size > MAX_FILE_BYTES) errors.push(FileErrors.tooLarge(file.name));
    else accepted.push(file);
  }
  let heicMessage: string | null = null;
  if (heic.length > 0) {
    heicMessage = heic.length === 1 ? FileErrors.heic(heic[0]!) : FileErrors.heicPlural(heic);
    if (accepted.length > 0) heicMessage += FileErrors.othersProcessed;
  }
  return { accepted, errors, heicMessage };
}

export const mediaTypeOf = (file: { type: string }): 'image' | 'video' =>
  file.type.toLowerCase().startsWith('video/') ? 'video' : 'image';

/**
 * An image's local preview as a data: URL (read with a time limit, unlike a blob: URL).
 * Gives up after 30 s with 'Failed to process file "X": …' (docs/product.md#limits-and-timings).
 */
export function readPreview(file: File, timeoutMs = FILE_READ_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    const timer = setTimeout(() => {
      reader.abort();
      reject(new Error(AdminText.fileReadFailed(file.name, `reading timed out after ${timeoutMs / 1000} s`)));
    }, timeoutMs);
    reader.onload = () => {
      clearTimeout(timer);
      resolve(String(reader.result));
    };
    reader.onerror = () => {
      clearTimeout(timer);
      reject(new Error(AdminText.fileReadFailed(file.name, reader.error?.message ?? 'unreadable file')));
    };
    reader.readAsDataURL(file);
  });
}
