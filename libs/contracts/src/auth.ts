import { z } from 'zod';
import { ADMIN_ROLE, DEFAULT_ROLE } from './roles.js';

/** Username and password rules (docs/product.md#limits-and-timings), shared by the register form and the auth service. */
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

/** Recovery codes: 16 base32 characters (80 bits), shown as four groups of four. */
export const RECOVERY_CODE_LENGTH = 16;

/**
 * A TOTP code (6 digits) or a recovery code: 16 base32 characters (xxxx-xxxx-xxxx-xxxx), or
 * the 10-character form issued before them (xxxxx-xxxxx, accepted until used). Spaces, dashes
 * and case are ignored; the value comes out in its canonical form (recovery codes with dashes).
 */
export const twoFactorCodeSchema = requiredString('code').pipe(
  z
    .string()
    .transform((v) => v.replace(/[\s-]+/g, '').toLowerCase())
    .pipe(
      z
        .string()
        .regex(/^(\d{6}|[a-z2-7]{16}|[a-z0-9]{10})$/, 'code must be 6 digits or a recovery code')
        .transform((v) =>
          v.length === 16
            ? v.match(/.{4}/g)!.join('-')
            : v.length === 10
              ? `${v.slice(0, 5)}-${v.slice(5)}`
              : v,
        ),
    ),
);

/**
 * Sign-in only requires both fields: an admin named by ADMIN_USERNAME need not follow the
 * register rules. `code` is the second step for accounts with two-factor sign-in.
 */
export const loginSchema = z.object({
  username: requiredString('username').pipe(z.string().max(256, 'username is too long')),
  password: requiredString('password').pipe(z.string().max(1024, 'password is too long')),
  code: twoFactorCodeSchema.optional(),
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

export const roleChangeSchema = z.object({
  role: z.enum([ADMIN_ROLE, DEFAULT_ROLE], { error: `role must be "${ADMIN_ROLE}" or "${DEFAULT_ROLE}"` }),
});
export type RoleChange = z.infer<typeof roleChangeSchema>;

export const passwordChangeSchema = z.object({
  currentPassword: requiredString('currentPassword').pipe(
    z.string().max(1024, 'currentPassword is too long'),
  ),
  newPassword: passwordSchema,
});
export type PasswordChange = z.infer<typeof passwordChangeSchema>;

/**
 * Turning two-factor sign-in on or off and getting new recovery codes: the account's current
 * password beside a code, so a session alone (a borrowed browser, a stolen token) cannot.
 */
export const twoFactorConfirmSchema = z.object({
  password: requiredString('password').pipe(z.string().max(1024, 'password is too long')),
  code: twoFactorCodeSchema,
});
export type TwoFactorConfirm = z.infer<typeof twoFactorConfirmSchema>;

/** 401 body of a sign-in that needs its second step. */
export interface TwoFactorRequired {
  error: string;
  twoFactorRequired: true;
}

export interface TwoFactorSetup {
  secret: string;
  /** otpauth://totp/… for an authenticator app (shown as a QR code). */
  otpauthUrl: string;
}

export interface TwoFactorEnabled {
  /** Ten single-use codes, shown once. */
  recoveryCodes: string[];
}

/** Two-factor sign-in turned off: every other session is signed out, `token` is this one's new session. */
export interface TwoFactorDisabled extends AccountView {
  token: string;
}

/** The signed-in person's own account, for the Account tab. */
export interface AccountView {
  id: string;
  username: string;
  role: string;
  twoFactorEnabled: boolean;
  /**
   * While too many wrong two-factor codes lock the account's code checks (sign-in, turning
   * two-factor on or off, new recovery codes): when the lock ends (ISO 8601); else null.
   */
  codeLockedUntil: string | null;
}

/** What the gateway checks a token against: the account's current role and session version. */
export interface SessionState {
  role: string;
  sessionVersion: number;
}

/** The account a signed-in call acts for, as the gateway sends it to the auth service. */
export interface ActorCommand {
  actorId: string;
}

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

/**
 * Claims of the JWTs the auth service issues; exp is in seconds. `sv` is the account's
 * session version when issued: a password change or "sign out everywhere" raises it, and
 * every older token stops working.
 */
export interface TokenClaims {
  sub: string;
  username: string;
  role: string;
  exp: number;
  iat?: number;
  sv?: number;
}

/** What the gateway tells the auth service about a login attempt (for brute-force limits). */
export interface LoginCommand extends LoginRequest {
  ip: string;
}

/** Registration with the client's address (for the per-address limit). */
export interface RegisterCommand extends RegisterRequest {
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
