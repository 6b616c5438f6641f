import { z } from 'zod';

/** Username and password rules (SPEC.md §5), shared by the register form and the auth service. */
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 32;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const USERNAME_PATTERN = /^[A-Za-z0-9._-]+$/;

const requiredString = (field: string) =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`),
    })
    .refine((v) => v.trim().length > 0, {
      message: `${field} is required`,
    });

/** Sign-in only requires both fields: an admin named by ADMIN_USERNAME need not follow the register rules. */
export const loginSchema = z.object({
  username: requiredString('username').pipe(z.string().max(256, 'username is too long')),
  password: requiredString('password').pipe(z.string().max(1024, 'password is too long')),
});
export type LoginRequest = z.infer<typeof loginSchema>;

export const usernameSchema = requiredString('username').pipe(
  z
    .string()
    .min(USERNAME_MIN, `username must be ${USERNAME_MIN}-${USERNAME_MAX} characters`)
    .max(USERNAME_MAX, `username must be ${USERNAME_MIN}-${USERNAME_MAX} characters`)
    .regex(USERNAME_PATTERN, 'username may contain only letters, digits, ".", "_" and "-"'),
);

export const passwordSchema = requiredString('password').pipe(
  z
    .string()
    .min(PASSWORD_MIN, `password must be ${PASSWORD_MIN}-${PASSWORD_MAX} characters`)
    .max(PASSWORD_MAX, `password must be ${PASSWORD_MIN}-${PASSWORD_MAX} characters`),
);

/** Unknown fields (a forged `role`, say) are stripped by z.object. */
export const registerSchema = z.object({ username: usernameSchema, password: passwordSchema });
export type RegisterRequest = z.infer<typeof registerSchema>;

export interface LoginResponse {
  token: string;
  username: string;
  role: string;
}

export interface PublicUser {
  id: string;
  username: string;
  role: string;
  created_at: string;
}

export interface RegisterResponse {
  success: true;
  user: PublicUser;
  message: string;
}

/** Claims of the JWTs the auth service issues; exp is in seconds. */
export interface TokenClaims {
  sub: string;
  username: string;
  role: string;
  exp: number;
  iat?: number;
}

/** What the gateway tells the auth service about a login attempt (for brute-force limits). */
export interface LoginCommand extends LoginRequest {
  ip: string;
}

/**
 * Turns a schema failure into one message naming the field, the shape every 400 uses.
 * Keeps the first problem only: the form shows one line.
 */
export function describeValidationError(error: z.ZodError): { field?: string; message: string } {
  const issue = error.issues[0];
  if (!issue) return { message: 'Invalid request' };
  const field = issue.path.map(String).join('.') || undefined;
  let message = issue.message;
  if (issue.code === 'invalid_type' && field && message.startsWith('Invalid input')) {
    message = `${field} must be a ${issue.expected}`;
  } else if (field && !message.toLowerCase().startsWith((field.split('.').pop() ?? '').toLowerCase())) {
    message = `${field}: ${message}`;
  }
  return { field, message };
}
