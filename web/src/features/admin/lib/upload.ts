import { UPLOAD_TIMEOUT_MS } from '@blog/contracts/admin';
import type { PostView } from '@blog/contracts/posts';
import { serverMessageOf } from '../../../api/client';
import { UploadError } from './saveErrors';

export interface UploadRequest {
  method: 'POST' | 'PUT';
  url: string;
  body: FormData;
  token: string | null;
  /** 0-100 as the bytes go out. */
  onProgress(percent: number): void;
  /** Called once every byte is sent and the server is working on the files. */
  onUploaded(): void;
  /** The 401/403 rule of the API client: clear the session, go to /login. */
  onUnauthorized(): void;
  timeoutMs?: number;
  /** The submission's key: a retry of the same form sends the same one (done once by the server). */
  idempotencyKey?: string;
}

/** The multipart post upload (docs/api.md, docs/product.md#limits-and-timings). */
export const sendPostForm = (request: UploadRequest) => sendForm<PostView>(request);

/**
 * A multipart upload with its progress: XMLHttpRequest, because fetch reports no upload
 * progress; 120 s timeout unless told. Rejects with UploadError (status 0: no answer).
 */
export function sendForm<T>(request: UploadRequest): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, request.url);
    xhr.timeout = request.timeoutMs ?? UPLOAD_TIMEOUT_MS;
    xhr.setRequestHeader('Accept', 'application/json');
    if (request.token) xhr.setRequestHeader('Authorization', `Bearer ${request.token}`);
    if (request.idempotencyKey) xhr.setRequestHeader('Idempotency-Key', request.idempotencyKey);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0)
        request.onProgress(Math.round((event.loaded / event.total) * 100));
    };
    xhr.upload.onload = () => request.onUploaded();
    xhr.onload = () => {
      let body: unknown;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (xhr.status === 401 || xhr.status === 403) request.onUnauthorized();
      if (xhr.status >= 200 && xhr.status <= 299) resolve(body as T);
      else reject(new UploadError(xhr.status, serverMessageOf(body)));
    };
    xhr.onerror = () => reject(new UploadError(0, null));
    xhr.ontimeout = () => reject(new UploadError(0, null, true));
    xhr.send(request.body);
  });
}
