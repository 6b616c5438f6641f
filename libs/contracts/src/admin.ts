/**
 * The admin dashboard's texts and limits (docs/product.md#screens, #how-the-screens-behave, #error-texts, #limits-and-timings): the web shows them and the
 * browser tests read them from here, so a wording changes in one place. No schema library.
 */

/** Post list page size in the dashboard (docs/product.md#limits-and-timings). */
export const ADMIN_PAGE_SIZE = 10;
/** Characters of content a list row shows (docs/product.md#limits-and-timings). */
export const ADMIN_PREVIEW_LENGTH = 100;
/** Media thumbnails a list row shows. */
export const ADMIN_ROW_THUMBNAILS = 6;

export const UPLOAD_TIMEOUT_MS = 120_000;
export const FILE_READ_TIMEOUT_MS = 30_000;
export const DRAFT_KEY = 'postForm_autoSave';
export const DRAFT_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** The new post's last submission (its Idempotency-Key), kept beside the draft for a Retry after a reload. */
export const SUBMISSION_KEY = 'postForm_submission';
export const AUTOSAVE_DELAY_MS = 2000;
export const SAVED_INDICATOR_MS = 3000;
export const SETTINGS_MESSAGE_MS = 3000;
export const NOTIFICATION_MS = 5000;
export const NOTIFICATION_FADE_MS = 300;
/** Drag and drop of the media list (docs/product.md#limits-and-timings). */
export const DRAG = { distance: 8, touchDelay: 100, touchTolerance: 8, keyboardStep: 25 } as const;
/** Pinch and wheel zoom of the crop dialog, relative to the image covering the frame (docs/product.md#limits-and-timings). */
export const CROP_ZOOM = { min: 0.5, max: 3 } as const;

export const AdminText = {
  sessionExpired: 'Session expired. Please log in again.',
  fetchPostsFailed: 'Failed to fetch posts',
  deleteFailed: 'Failed to delete post',
  noPosts: 'No posts found',
  noMatches: 'No posts match your current filters',
  settingsSaved: 'Settings saved successfully!',
  settingsFailed: 'Error saving settings',
  uploaded: 'Post uploaded successfully!',
  updated: 'Post updated successfully!',
  uploadFailed: 'Upload failed',
  updateFailed: 'Update failed',
  leaveWarning: 'Uploads are still in progress. Are you sure you want to leave?',
  savedLocally: 'Saved locally',
  saveFailed: 'Save failed',
  draftFilesDropped: 'Files are not kept in the local draft: add them again.',
  unsupportedTitle: 'Unsupported File Format',
  uploadingPost: 'Uploading Post',
  processingFiles: 'Processing Files',
  starting: 'Starting...',
  uploadingPercent: (n: number) => `Uploading post... ${n}%`,
  showing: (from: number, to: number, total: number, all: number) =>
    `Showing ${from}-${to} of ${total} posts (filtered from ${all} total)`,
  youtubeTitle: (n: number) => `YouTube Video ${n}`,
  fileReadFailed: (name: string, reason: string) => `Failed to process file "${name}": ${reason}`,
} as const;

/** Form-level save errors (docs/product.md#error-texts). */
export const FormSaveText = {
  network: "Network error. Your data has been saved locally. Click 'Retry' to try again.",
  other: 'An error occurred while saving the post. Please try again.',
  retryFailed: 'Retry failed. Please check your connection and try again.',
} as const;

/** The dashboard banner for a failed save, by condition (docs/product.md#error-texts). */
export const SaveBannerText = {
  timeout: 'Upload timed out. Please try again with smaller files or check your connection.',
  tooLarge: 'Files are too large. Please reduce file sizes and try again.',
  badRequest: (detail: string | null) =>
    `Invalid request: ${detail ?? 'Please check your files and try again.'}`,
  unauthorized: 'Authentication failed. Please log in again.',
  forbidden: 'Access denied. You may not have permission to create posts.',
  notFound: 'API endpoint not found. Please check the server configuration.',
  server: 'Server error. Please try again later.',
  network: 'Network error. Please check your connection and try again.',
  other: (message: string) => `Failed to save post: ${message}`,
} as const;
