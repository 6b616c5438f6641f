import type {
  LoginRequest,
  LoginResponse,
  PublicUser,
  RegisterRequest,
  RegisterResponse,
} from '@blog/contracts';
import { ApiError, type ApiClient } from './client';

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
