import { z } from 'zod';
import { OutboundAllowList } from './outbound/address-policy.js';
import { transportEnv } from './transport.js';

/**
 * Reads and validates configuration from the environment once, at start.
 * A bad value stops the process with a message naming the variable.
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Exits non-zero with the config message instead of a stack trace. */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError || (error instanceof Error && error.name === 'SiteConfigError')) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
}

export const envSchemas = {
  port: (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback),
  host: (fallback: string) => z.string().min(1).default(fallback),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  databaseUrl: z
    .string({ error: 'DATABASE_URL is required (postgres://user:pass@host:port/db)' })
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  /** Rejects short secrets; in production a secret is always required (no default exists). */
  jwtSecret: z
    .string({ error: 'JWT_SECRET is required (at least 32 characters)' })
    .min(32, 'must be at least 32 characters'),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** SITE_TIMEZONE: an IANA time zone; unset, the machine's (UTC when it has none). */
  timeZone: z
    .string()
    .default(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC')
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, 'must be an IANA time zone such as Europe/Berlin or UTC'),
  /** OUTBOUND_ALLOW: host names, IPs and CIDR ranges the outbound fetcher may reach though private (default none). */
  outboundAllow: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return OutboundAllowList.parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
};

/** Parses durations such as "7d", "12h", "30m", "45s" or a number of seconds. */
export function parseDurationSeconds(value: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return amount > 0 ? amount * unit : null;
}

export const durationSeconds = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const seconds = parseDurationSeconds(value);
      if (seconds === null) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration like 7d, 12h, 30m or seconds' });
        return z.NEVER;
      }
      return seconds;
    });

/** Variables every service reads: its database, where it listens and how the processes talk. */
export const serviceEnv = {
  DATABASE_URL: envSchemas.databaseUrl,
  /**
   * MIGRATIONS_BY: `service` (default) runs the service's migrations at its start; `upgrade`
   * waits for `npm run upgrade` (Kubernetes' init container, which backs the blog up first) to
   * have run them, so no schema changes before that backup.
   */
  MIGRATIONS_BY: z.enum(['service', 'upgrade']).default('service'),
  BIND_HOST: envSchemas.host('127.0.0.1'),
  LOG_LEVEL: envSchemas.logLevel,
  ...transportEnv,
};
