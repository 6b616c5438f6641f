import { passwordSchema, usernameSchema } from '@blog/contracts';
import { durationSeconds, requireNatsUrl, envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

export const authConfigSchema = z
  .object({
    ...serviceEnv,
    JWT_SECRET: envSchemas.jwtSecret,
    /** Encrypts TOTP secrets at rest; unset, a key derived from JWT_SECRET does (changing either makes them unreadable). */
    TOTP_ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    JWT_TTL: durationSeconds('7d'),
    AUTH_PORT: envSchemas.port(4001),
    DATA_DIR: z.string().default('./data'),
    ADMIN_USERNAME: usernameSchema.optional(),
    ADMIN_PASSWORD: passwordSchema.optional(),
    /** Brute-force protection: failures allowed per IP and username within the window. */
    LOGIN_MAX_FAILURES: envSchemas.positiveInt(5),
    LOGIN_WINDOW: durationSeconds('15m'),
    /** Registrations allowed per client address within the window. */
    REGISTER_MAX_PER_IP: envSchemas.positiveInt(5),
    REGISTER_WINDOW: durationSeconds('1h'),
    /** Wrong two-factor codes allowed per account, from any address, before its code checks answer 429 until the window ends. */
    TWO_FACTOR_MAX_FAILURES: envSchemas.positiveInt(5),
    TWO_FACTOR_WINDOW: durationSeconds('15m'),
  })
  .superRefine(requireNatsUrl);

export type AuthConfig = z.infer<typeof authConfigSchema>;

export const AUTH_CONFIG = Symbol('AUTH_CONFIG');

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  return loadConfig(authConfigSchema, env);
}
