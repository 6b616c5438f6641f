import { AdminText, FormSaveText, SaveBannerText } from '@blog/contracts/admin';
import { ApiError } from '../../../api/client';

/** A failed post upload: ApiError's status (0: no answer) plus whether the 120 s timeout hit. */
export class UploadError extends ApiError {
  constructor(
    status: number,
    serverMessage: string | null,
    readonly timedOut = false,
  ) {
    super(status, serverMessage);
    if (timedOut) this.message = 'Upload timed out';
    this.name = 'UploadError';
  }
}

const isTimeout = (error: unknown) => error instanceof UploadError && error.timedOut;
const isNetwork = (error: unknown) => error instanceof ApiError && error.status === 0 && !isTimeout(error);
const statusOf = (error: unknown) => (error instanceof ApiError ? error.status : null);
const messageOf = (error: unknown) => (error instanceof Error && error.message ? error.message : null);
const serverOf = (error: unknown) => (error instanceof ApiError ? error.serverMessage : null);

/** The dashboard banner for a failed save (docs/product.md#error-texts), first matching row wins. */
export function saveBannerMessage(error: unknown): string {
  if (isTimeout(error)) return SaveBannerText.timeout;
  const status = statusOf(error);
  if (status === 413) return SaveBannerText.tooLarge;
  if (status === 400) return SaveBannerText.badRequest(serverOf(error));
  if (status === 401) return SaveBannerText.unauthorized;
  if (status === 403) return SaveBannerText.forbidden;
  if (status === 404) return SaveBannerText.notFound;
  if (status !== null && status >= 500 && status <= 599) return SaveBannerText.server;
  if (isNetwork(error)) return SaveBannerText.network;
  return SaveBannerText.other(messageOf(error) ?? 'Unknown error');
}

/**
 * The error line inside the form (docs/product.md#error-texts). A network error or timeout keeps the form
 * and offers Retry; a retry that fails again says so.
 */
export function formSaveError(error: unknown, retrying: boolean): { message: string; canRetry: boolean } {
  if (isTimeout(error) || isNetwork(error)) {
    return { message: retrying ? FormSaveText.retryFailed : FormSaveText.network, canRetry: true };
  }
  return { message: serverOf(error) ?? messageOf(error) ?? FormSaveText.other, canRetry: false };
}

/**
 * Whether a failed save may still have been stored: no answer, or a server error (the gateway
 * answers 5xx when it cannot tell). Its submission then keeps its key for the next try.
 */
export function mayHaveBeenSaved(error: unknown): boolean {
  const status = statusOf(error);
  return isTimeout(error) || isNetwork(error) || (status !== null && status >= 500);
}

/** 'Upload failed: …' / 'Update failed: …' (docs/product.md#error-texts). */
export function saveNotification(mode: 'create' | 'update', error: unknown): string {
  const prefix = mode === 'create' ? AdminText.uploadFailed : AdminText.updateFailed;
  const status = statusOf(error);
  const detail =
    status === 401 || status === 403
      ? AdminText.sessionExpired
      : (serverOf(error) ?? messageOf(error) ?? prefix);
  return `${prefix}: ${detail}`;
}

/** A failed post list (docs/product.md#error-texts). */
export function fetchPostsError(error: unknown): string {
  const status = statusOf(error);
  return status === 401 || status === 403 ? AdminText.sessionExpired : AdminText.fetchPostsFailed;
}
