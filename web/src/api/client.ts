import type { SessionStore } from '../session/store';

/** A failed call: an answer outside 200-299, or no answer at all (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The JSON body's `error` field, else its `message`; null when the server sent neither. */
    readonly serverMessage: string | null,
    /** The whole JSON body (a sign-in's `twoFactorRequired`). */
    readonly body: unknown = null,
    /** Seconds a 429's Retry-After asks to wait, or null. */
    readonly retryAfter: number | null = null,
  ) {
    super(serverMessage ?? (status === 0 ? 'Network error' : `Request failed with status ${status}`));
    this.name = 'ApiError';
  }
}

/** The text to show for a failed call: the server's own words, else the caller's fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  return error instanceof ApiError && error.serverMessage ? error.serverMessage : fallback;
}

/** Reads `error` (else `message`) from a JSON error body. */
export function serverMessageOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error === 'string' && error.trim()) return error;
  if (typeof message === 'string' && message.trim()) return message;
  return null;
}

/** Paths where a 401/403 must not navigate again (docs/product.md#how-the-screens-behave). */
const SIGN_IN_PATHS = ['/login', '/admin/login'];

export function isSignInPath(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return SIGN_IN_PATHS.includes(path);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as multipart/form-data instead (a file upload). */
  form?: FormData;
  signal?: AbortSignal;
  /** More request headers (e.g. an import's own id). */
  headers?: Record<string, string>;
}

/** One page of a list: the items and the total the server counted (X-Total-Count). */
export interface Page<T> {
  items: T[];
  total: number;
}

export interface ApiClient {
  request<T>(path: string, options?: RequestOptions): Promise<T>;
  /** A GET of a paged list: the JSON array and its X-Total-Count (the array's length when absent). */
  list<T>(path: string, options?: Pick<RequestOptions, 'signal'>): Promise<Page<T>>;
}

export interface ApiClientOptions {
  session: SessionStore;
  /** Called after a 401/403 has cleared the session; navigates to /login (the app decides how). */
  onUnauthorized: () => void;
  /** Prefix for API paths; '' means the page's own origin (the gateway serves the web). */
  baseUrl?: string;
  fetch?: typeof fetch;
}

/**
 * The one way the web calls the API. Adds the Bearer token when signed in, treats 200-299
 * as success, and on any 401 or 403 clears the session before reporting the error.
 */
export function createApiClient({
  session,
  onUnauthorized,
  baseUrl = '',
  fetch: fetchImpl = (...args) => globalThis.fetch(...args),
}: ApiClientOptions): ApiClient {
  async function send(path: string, { method = 'GET', body, form, signal, headers: extra }: RequestOptions) {
    const headers: Record<string, string> = { ...extra, Accept: 'application/json' };
    const token = session.get()?.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';

    let response: Response;
    try {
      response = await fetchImpl(`${baseUrl}${path}`, {
        method,
        headers,
        body: form ?? (body === undefined ? undefined : JSON.stringify(body)),
        signal,
      });
    } catch (cause) {
      if (signal?.aborted) throw cause;
      throw new ApiError(0, null);
    }

    const data = await readBody(response);
    if (response.status === 401 || response.status === 403) {
      session.clear();
      onUnauthorized();
    }
    if (response.status < 200 || response.status > 299) {
      throw new ApiError(response.status, serverMessageOf(data), data, retryAfterOf(response.headers));
    }
    return { data, headers: response.headers };
  }

  return {
    async request<T>(path: string, options: RequestOptions = {}): Promise<T> {
      return (await send(path, options)).data as T;
    },
    async list<T>(path: string, options: Pick<RequestOptions, 'signal'> = {}): Promise<Page<T>> {
      const { data, headers } = await send(path, options);
      const items = Array.isArray(data) ? (data as T[]) : [];
      const total = Number(headers.get('x-total-count'));
      return { items, total: Number.isFinite(total) && headers.has('x-total-count') ? total : items.length };
    },
  };
}

/** Retry-After in seconds (the gateway sends seconds, never a date). */
function retryAfterOf(headers: Headers): number | null {
  const raw = headers.get('retry-after')?.trim();
  const seconds = raw ? Number(raw) : Number.NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

async function readBody(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (response.status === 204 || !type.includes('json')) return undefined;
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}
