import type {
  AccountView,
  LoginRequest,
  LoginResponse,
  PasswordChange,
  PublicUser,
  RegisterRequest,
  RegisterResponse,
  TwoFactorConfirm,
  TwoFactorDisabled,
  TwoFactorEnabled,
  TwoFactorSetup,
} from '@blog/contracts';
import { ApiError, type ApiClient } from './client';

/** A sign-in refused until its second step: the account has two-factor sign-in on. */
export const needsTwoFactor = (error: unknown): boolean =>
  error instanceof ApiError &&
  error.status === 401 &&
  (error.body as { twoFactorRequired?: unknown } | null)?.twoFactorRequired === true;

export async function login(api: ApiClient, credentials: LoginRequest): Promise<LoginResponse> {
  const body = await api.request<Partial<LoginResponse> | undefined>('/api/auth/login', {
    method: 'POST',
    body: credentials,
  });
  if (typeof body?.token !== 'string' || typeof body.username !== 'string' || typeof body.role !== 'string') {
    // A 2xx without the three fields cannot start a session; the caller shows 'Login failed'.
    throw new ApiError(200, null);
  }
  return { token: body.token, username: body.username, role: body.role };
}

export function register(api: ApiClient, request: RegisterRequest): Promise<RegisterResponse> {
  return api.request<RegisterResponse>('/api/auth/register', { method: 'POST', body: request });
}

export function listUsers(api: ApiClient, signal?: AbortSignal): Promise<PublicUser[]> {
  return api.request<PublicUser[]>('/api/auth/users', { signal });
}

export const setUserRole = (api: ApiClient, id: string, role: string) =>
  api.request<PublicUser>(`/api/auth/users/${encodeURIComponent(id)}`, { method: 'PUT', body: { role } });

export const deleteUser = (api: ApiClient, id: string) =>
  api.request<{ success: true }>(`/api/auth/users/${encodeURIComponent(id)}`, { method: 'DELETE' });

export const getAccount = (api: ApiClient, signal?: AbortSignal) =>
  api.request<AccountView>('/api/auth/account', { signal });

/** Answers a new session: every other device is signed out. */
export const changePassword = (api: ApiClient, change: PasswordChange) =>
  api.request<LoginResponse>('/api/auth/password', { method: 'PUT', body: change });

export const signOutEverywhere = (api: ApiClient) =>
  api.request<LoginResponse>('/api/auth/sessions/revoke', { method: 'POST' });

export const setUpTwoFactor = (api: ApiClient) =>
  api.request<TwoFactorSetup>('/api/auth/2fa/setup', { method: 'POST' });

/** The current password beside the first code from the app; answers the recovery codes, once. */
export const enableTwoFactor = (api: ApiClient, confirm: TwoFactorConfirm) =>
  api.request<TwoFactorEnabled>('/api/auth/2fa/enable', { method: 'POST', body: confirm });

/** Answers the account and a new session: every other device is signed out. */
export const disableTwoFactor = (api: ApiClient, confirm: TwoFactorConfirm) =>
  api.request<TwoFactorDisabled>('/api/auth/2fa/disable', { method: 'POST', body: confirm });

/** Ten new recovery codes, shown once; the old ones stop working. */
export const renewRecoveryCodes = (api: ApiClient, confirm: TwoFactorConfirm) =>
  api.request<TwoFactorEnabled>('/api/auth/2fa/recovery-codes', { method: 'POST', body: confirm });
