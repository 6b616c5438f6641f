import { passwordSchema, usernameSchema } from '@blog/contracts';
import { durationSeconds, requireNatsUrl, envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

export const authConfigSchema = z
  .object({
    ...serviceEnv,
    JWT_SECRET: envSchemas.jwtSecret,
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
  })
  .superRefine(requireNatsUrl);

export type AuthConfig = z.infer<typeof authConfigSchema>;

export const AUTH_CONFIG = Symbol('AUTH_CONFIG');

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  return loadConfig(authConfigSchema, env);
}
