import { AdminText, FormSaveText, SaveBannerText } from '@blog/contracts/admin';
import { ApiError } from '../../../api/client';
import {
  mayHaveBeenSaved,
  fetchPostsError,
  formSaveError,
  saveBannerMessage,
  saveNotification,
  UploadError,
} from './saveErrors';

describe('save error messages (docs/product.md#error-texts)', () => {
  test('the banner follows the status table', () => {
    expect(saveBannerMessage(new UploadError(0, null, true))).toBe(SaveBannerText.timeout);
    expect(saveBannerMessage(new UploadError(413, 'File too large'))).toBe(SaveBannerText.tooLarge);
    expect(saveBannerMessage(new UploadError(400, 'title must be at most 200 characters'))).toBe(
      'Invalid request: title must be at most 200 characters',
    );
    expect(saveBannerMessage(new UploadError(400, null))).toBe(
      'Invalid request: Please check your files and try again.',
    );
    expect(saveBannerMessage(new UploadError(401, null))).toBe(SaveBannerText.unauthorized);
    expect(saveBannerMessage(new UploadError(403, null))).toBe(SaveBannerText.forbidden);
    expect(saveBannerMessage(new UploadError(404, null))).toBe(SaveBannerText.notFound);
    expect(saveBannerMessage(new UploadError(500, 'boom'))).toBe(SaveBannerText.server);
    expect(saveBannerMessage(new UploadError(503, null))).toBe(SaveBannerText.server);
    expect(saveBannerMessage(new UploadError(0, null))).toBe(SaveBannerText.network);
    expect(saveBannerMessage(new UploadError(409, 'Slug taken'))).toBe('Failed to save post: Slug taken');
    expect(saveBannerMessage(new Error('odd'))).toBe('Failed to save post: odd');
  });

  test('the form offers Retry on a network error or timeout, and says when a retry failed', () => {
    expect(formSaveError(new UploadError(0, null), false)).toEqual({
      message: FormSaveText.network,
      canRetry: true,
    });
    expect(formSaveError(new UploadError(0, null, true), false).canRetry).toBe(true);
    expect(formSaveError(new UploadError(0, null), true)).toEqual({
      message: FormSaveText.retryFailed,
      canRetry: true,
    });
    expect(formSaveError(new UploadError(400, 'Bad date'), false)).toEqual({
      message: 'Bad date',
      canRetry: false,
    });
    expect(formSaveError(new UploadError(500, null), false).message).toBe('Request failed with status 500');
    expect(formSaveError(null, false)).toEqual({ message: FormSaveText.other, canRetry: false });
  });

  test('notifications: session expired on 401/403, else server, thrown message, or the plain prefix', () => {
    expect(saveNotification('create', new UploadError(401, 'x'))).toBe(
      `Upload failed: ${AdminText.sessionExpired}`,
    );
    expect(saveNotification('update', new UploadError(403, null))).toBe(
      `Update failed: ${AdminText.sessionExpired}`,
    );
    expect(saveNotification('create', new UploadError(400, 'Title is required'))).toBe(
      'Upload failed: Title is required',
    );
    expect(saveNotification('update', new Error('Socket closed'))).toBe('Update failed: Socket closed');
    expect(saveNotification('create', undefined)).toBe('Upload failed: Upload failed');
  });

  test('a failed post list: session expired on 401/403, else the generic text', () => {
    expect(fetchPostsError(new ApiError(401, null))).toBe(AdminText.sessionExpired);
    expect(fetchPostsError(new ApiError(403, null))).toBe(AdminText.sessionExpired);
    expect(fetchPostsError(new ApiError(500, null))).toBe(AdminText.fetchPostsFailed);
  });
});

describe('whether a failed save may have been stored (the submission then keeps its key)', () => {
  test('no answer, a timeout or a server error: maybe; a refusal: no', () => {
    expect(mayHaveBeenSaved(new UploadError(0, null))).toBe(true);
    expect(mayHaveBeenSaved(new UploadError(0, null, true))).toBe(true);
    expect(mayHaveBeenSaved(new UploadError(503, 'down'))).toBe(true);
    expect(mayHaveBeenSaved(new UploadError(400, 'bad'))).toBe(false);
    expect(mayHaveBeenSaved(new UploadError(422, 'reused'))).toBe(false);
  });
});
