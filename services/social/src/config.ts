import { envSchemas, loadConfig, requireNatsUrl, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

/** Unset and empty are the same thing for an environment variable. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

export const socialConfigSchema = z
  .object({
    ...serviceEnv,
    SOCIAL_PORT: envSchemas.port(4005),
    /** The public address of the site: the origin of the blog's actor and Article ids. */
    SITE_URL: z.preprocess(
      unsetIfEmpty,
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
        .default('http://localhost:3000')
        .transform((url) => url.replace(/\/+$/, '')),
    ),
  })
  .superRefine(requireNatsUrl);
export type SocialConfig = z.infer<typeof socialConfigSchema>;

export const SOCIAL_CONFIG = Symbol('SOCIAL_CONFIG');

export function loadSocialConfig(env: NodeJS.ProcessEnv = process.env): SocialConfig {
  return loadConfig(socialConfigSchema, env);
}
